import assert from "node:assert/strict";
import { ServiceError } from "../../engine/mod.ts";
import { openDatabase, storageError } from "./database.ts";

Deno.test("a full quota becomes a 413 naming the database and what to do", () => {
  const err = storageError(new DOMException("quota", "QuotaExceededError"), "store a file", "svc-playground");
  assert.equal(err.kind, "too_large");
  assert.match(
    err.message,
    /Browser storage is full: could not store a file .*'svc-playground'.*Delete models/,
  );
  assert.match(
    storageError(new Error("disk"), "save model 'm'", "db").message,
    /failed to save model 'm': disk/,
  );
});

Deno.test("no IndexedDB and a blocked upgrade are refused with a clear message", async () => {
  await assert.rejects(openDatabase("db", undefined), /offers no IndexedDB/);
  const request = {} as IDBOpenDBRequest;
  const blocking = {
    open: () => (queueMicrotask(() => request.onblocked?.({} as IDBVersionChangeEvent)), request),
  };
  await assert.rejects(
    openDatabase("svc-playground", blocking as unknown as IDBFactory),
    (err: ServiceError) =>
      /'svc-playground' is blocked: another tab .*Close the other tabs/.test(err.message),
  );
});
