import assert from "node:assert/strict";
import { isPrefixOf, type Segment, WILDCARD } from "../json/path.ts";
import { targetHolding } from "./target_index.ts";

const TARGETS: { target: Segment[]; node: string }[] = [
  { target: ["total"], node: "total" },
  { target: ["items", WILDCARD, "lineTotal"], node: "lineTotal" },
  { target: ["summary"], node: "summary" },
  { target: ["summary", "count"], node: "count (inside summary)" },
  { target: [WILDCARD, "x"], node: "root element x" },
  { target: ["items", WILDCARD], node: "whole items" },
];

Deno.test("targetHolding answers what a linear search of the targets answers", () => {
  const paths: Segment[][] = [
    ["total"],
    ["total", "x"],
    ["items", 3, "lineTotal"],
    ["items", 3, "qty"],
    ["items"],
    ["summary", "count"],
    ["summary", "other"],
    [2, "x"],
    [2, "y"],
    ["absent"],
    [],
  ];
  for (const path of paths) {
    assert.equal(
      targetHolding(TARGETS, path),
      TARGETS.find((t) => isPrefixOf(t.target, path))?.node,
      JSON.stringify(path),
    );
  }
});
