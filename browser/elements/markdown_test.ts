import assert from "node:assert/strict";
import { markdownToHtml } from "./markdown.ts";

Deno.test("markdown: escaped first, then the small subset", () => {
  assert.equal(
    markdownToHtml("# Title\nSome **bold** and *em* `x<y`\n\n- a\n- [b](https://e.org)\n<script>"),
    '<h3>Title</h3><p>Some <strong>bold</strong> and <em>em</em> <code>x&lt;y</code></p><ul><li>a</li><li><a href="https://e.org" target="_blank" rel="noopener noreferrer">b</a></li></ul><p>&lt;script&gt;</p>',
  );
  assert.equal(markdownToHtml("[x](javascript:alert(1))"), "<p>[x](javascript:alert(1))</p>");
});
