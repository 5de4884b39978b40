// Listens to the element's events: every committed write arrives as `svc-commit`.
document.querySelector("svc-model").addEventListener("svc-commit", (event) => {
  const { result } = event.detail;
  document.getElementById("last-commit").textContent = `Saved: ${result.mutatedPaths.join(", ")}` +
    (result.derivedUpdated.length ? ` (recomputed ${result.derivedUpdated.join(", ")})` : "");
});
