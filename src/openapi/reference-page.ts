/**
 * /api/docs: the OpenAPI document rendered in the browser with nothing but this page (no CDN, so
 * it works offline and behind a strict egress policy). Operations are grouped by tag; a schema is
 * drawn when its operation is opened.
 */
export const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fafbfc; }
  header { padding: 16px 24px; background: #1d2330; color: #fff; }
  header h1 { margin: 0; font-size: 18px; }
  header a { color: #9cc3ff; }
  main { max-width: 1100px; margin: 0 auto; padding: 16px 24px; }
  input { width: 100%; padding: 8px; font: inherit; box-sizing: border-box; margin-bottom: 12px; }
  h2 { margin: 24px 0 4px; font-size: 16px; }
  .tag-description { color: #5a6478; margin: 0 0 8px; }
  details.operation { background: #fff; border: 1px solid #e1e5ec; border-radius: 6px; margin: 4px 0; }
  details.operation > summary { cursor: pointer; padding: 6px 10px; font-family: ui-monospace, monospace; }
  .method { display: inline-block; min-width: 62px; font-weight: 600; text-transform: uppercase; }
  .get { color: #0b7a3e; } .post { color: #1c5fd1; } .put, .patch { color: #a15c00; } .delete { color: #b3261e; }
  .body { padding: 4px 14px 12px; }
  pre { background: #f3f5f8; padding: 8px; overflow: auto; max-height: 420px; font-size: 12px; }
  table { border-collapse: collapse; } td, th { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }
</style>
</head>
<body>
<header><h1>API reference</h1><div>The OpenAPI 3.1 document: <a href="openapi.json">/api/openapi.json</a></div></header>
<main>
<input id="filter" type="search" placeholder="Filter by path, tag or text" aria-label="Filter operations">
<div id="operations">Loading…</div>
</main>
<script>
const element = (name, attributes = {}, ...children) => {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
};
const resolve = (document, schema) => {
  if (schema && schema.$ref) return resolve(document, schema.$ref.split("/").slice(1).reduce((at, part) => at?.[part], document));
  return schema;
};
function operationBody(document, operation) {
  const body = element("div", { class: "body" });
  if (operation.description) body.append(element("p", {}, operation.description));
  const schemes = (operation.security ?? []).map((requirement) => Object.keys(requirement).join(" + ") || "none");
  body.append(element("p", {}, "Credentials: " + (schemes.length ? schemes.join(", ") : "none")));
  if (operation.parameters?.length) {
    const table = element("table", {}, element("tr", {}, element("th", {}, "parameter"), element("th", {}, "in"), element("th", {}, "required")));
    for (const parameter of operation.parameters) table.append(element("tr", {}, element("td", {}, parameter.name), element("td", {}, parameter.in), element("td", {}, parameter.required ? "yes" : "no")));
    body.append(table);
  }
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    body.append(element("h4", {}, "Request body (" + type + ")"), element("pre", {}, JSON.stringify(resolve(document, media.schema), null, 2)));
  }
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    body.append(element("h4", {}, "Response " + status), element("p", {}, response.description ?? ""));
    for (const media of Object.values(response.content ?? {})) body.append(element("pre", {}, JSON.stringify(resolve(document, media.schema), null, 2)));
  }
  return body;
}
function render(document) {
  const container = window.document.getElementById("operations");
  container.textContent = "";
  const byTag = new Map(document.tags.map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item)) byTag.get(operation.tags?.[0])?.push({ path, method, operation });
  for (const tag of document.tags) {
    const operations = byTag.get(tag.name);
    if (!operations?.length) continue;
    const section = element("section", { "data-tag": tag.name }, element("h2", {}, tag.name + " (" + operations.length + ")"), element("p", { class: "tag-description" }, tag.description));
    for (const { path, method, operation } of operations) {
      const details = element("details", { class: "operation", "data-search": (tag.name + " " + method + " " + path + " " + (operation.description ?? "")).toLowerCase() },
        element("summary", {}, element("span", { class: "method " + method }, method), " " + path));
      details.addEventListener("toggle", () => { if (details.open && details.children.length === 1) details.append(operationBody(document, operation)); });
      section.append(details);
    }
    container.append(section);
  }
}
fetch("openapi.json").then((response) => response.json()).then((document) => {
  render(document);
  window.document.getElementById("filter").addEventListener("input", (event) => {
    const words = event.target.value.toLowerCase().split(/\\s+/).filter(Boolean);
    for (const details of window.document.querySelectorAll("details.operation")) details.hidden = !words.every((word) => details.dataset.search.includes(word));
    for (const section of window.document.querySelectorAll("section")) section.hidden = ![...section.querySelectorAll("details.operation")].some((details) => !details.hidden);
  });
}, (error) => { window.document.getElementById("operations").textContent = "Could not load the document: " + error; });
</script>
</body>
</html>
`;
