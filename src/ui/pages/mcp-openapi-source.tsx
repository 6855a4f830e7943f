import { useState } from "preact/hooks";
import { mcp } from "../api/endpoints";
import type { McpClient } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, Field, TextField } from "../components/fields";
import { listOf, pairs, pairsText } from "../lib/format";
import { messageOf } from "../lib/use-save";

type Operation = Awaited<ReturnType<typeof mcp.openapiOperations>>[number];

/** The document's operations as checkboxes that add and remove operationIds in the list to include. */
function OperationPicker({ operations, chosen, onChosen }: { operations: Operation[]; chosen: string[]; onChosen(names: string[]): void }) {
  return (
    <fieldset>
      <legend>Operations in the document</legend>
      {operations.map((operation) => {
        const name = operation.operation_id ?? operation.tool_name;
        return (
          <Checkbox
            key={name}
            label={`${operation.tool_name} · ${operation.method} ${operation.path}${operation.summary ? ` · ${operation.summary}` : ""}`}
            checked={chosen.includes(name)}
            onChecked={(checked) => onChosen(checked ? [...chosen, name] : chosen.filter((entry) => entry !== name))}
          />
        );
      })}
    </fieldset>
  );
}

/**
 * The fields of an OpenAPI MCP server (the document by URL or pasted, the operations and tags to
 * include, the credentials by security scheme) and the write body they make. A pasted document
 * is not shown again: left empty when editing, the stored one stays.
 */
export function useOpenApiSource(editing: McpClient | undefined, errorFor: (field: string) => string | undefined) {
  const stored = editing?.openapi;
  const [url, setUrl] = useState(stored && !stored.document_inline ? (editing?.connection_string ?? "") : "");
  const [document, setDocument] = useState("");
  const [baseUrl, setBaseUrl] = useState(stored?.base_url ?? "");
  const [operations, setOperations] = useState((stored?.include_operations ?? []).join(", "));
  const [tags, setTags] = useState((stored?.include_tags ?? []).join(", "));
  const [credentials, setCredentials] = useState(pairsText(stored?.credentials ?? {}));
  const [listed, setListed] = useState<Operation[]>();
  const { toast } = useFeedback();
  const pasted = document.trim() !== "";
  const loadOperations = async () => {
    try {
      setListed(await mcp.openapiOperations(pasted ? { document } : { connection_string: url.trim() }));
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const input = () => ({
    ...(!pasted && url.trim() ? { connection_string: url.trim() } : {}),
    openapi: {
      ...(pasted ? { document } : {}),
      ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
      include_operations: listOf(operations),
      include_tags: listOf(tags),
      credentials: pairs(credentials),
    },
  });
  const fields = (
    <>
      <TextField label="Document URL" type="url" value={url} onValue={setUrl} hint="Where the gateway reads the OpenAPI 3 document (JSON or YAML) at each connection." error={errorFor("connection_string")} />
      <Field label="Or paste the document" hint={stored?.document_inline ? "Empty keeps the stored document." : "JSON or YAML, instead of a URL."} error={errorFor("openapi.document")}>
        {(ids) => <textarea {...ids} class="code-input" rows={6} spellcheck={false} value={document} onInput={(event) => setDocument(event.currentTarget.value)} />}
      </Field>
      <TextField label="API base URL" type="url" value={baseUrl} onValue={setBaseUrl} hint="Empty: the document's first server." error={errorFor("openapi.base_url")} />
      <div class="actions">
        <button type="button" onClick={loadOperations} disabled={!pasted && !url.trim()}>
          List operations
        </button>
      </div>
      {listed && <OperationPicker operations={listed} chosen={listOf(operations)} onChosen={(names) => setOperations(names.join(", "))} />}
      <TextField label="Operations to include" value={operations} onValue={setOperations} hint="operationIds, comma-separated; with no operations and no tags, every operation is a tool." error={errorFor("openapi.include_operations")} />
      <TextField label="Tags to include" value={tags} onValue={setTags} hint="Operations with any of these tags are tools too." error={errorFor("openapi.include_tags")} />
      <TextField label="Credentials" value={credentials} onValue={setCredentials} hint="scheme=value pairs, by the document's security schemes; stored encrypted." error={errorFor("openapi.credentials")} />
    </>
  );
  return { fields, input };
}
