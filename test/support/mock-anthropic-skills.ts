/**
 * Anthropic's Skills API as the mock keeps it: a skill is uploaded as its folder's files
 * (`files[]`, each named by its path; one folder with a `SKILL.md` at its top, whose frontmatter
 * names it), which make its first version; more versions are uploaded the same way, and each is
 * downloaded as an archive. A skill with versions left cannot be deleted, as on Anthropic's.
 */

interface SkillVersion {
  id: string;
  type: "skill_version";
  skill_id: string;
  name: string;
  description: string;
  created_at: string;
  /** The uploaded files by path, for the test to check. */
  files: Map<string, Uint8Array>;
}

export interface Skill {
  object: { id: string; type: "skill"; display_name: string; latest_version_id: string; source: "custom"; created_at: string; updated_at: string };
  versions: Map<string, SkillVersion>;
}

/** A version's download: its files' paths and bytes one after another (a zip, on Anthropic's). */
export function skillArchive(version: { files: Map<string, Uint8Array> }): Uint8Array<ArrayBuffer> {
  const parts = [...version.files].flatMap(([path, bytes]) => [new TextEncoder().encode(`${path}\n`), bytes]);
  return Uint8Array.from(Buffer.concat(parts));
}

const error = (status: number, type: string, message: string) => Response.json({ type: "error", error: { type, message } }, { status });
const page = <T extends { id: string }>(data: T[]) => ({ data, has_more: false, next_page: null });
const versionView = ({ files: _files, ...version }: SkillVersion) => version;

/** A version from the uploaded folder, or the refusal Anthropic gives a folder without its SKILL.md. */
async function uploadedVersion(skillId: string, request: Request): Promise<SkillVersion | Response> {
  const form = await request.formData();
  const files = form.getAll("files[]").flatMap((value) => (value instanceof File ? [value as File] : []));
  const directories = new Set(files.map((file) => file.name.split("/")[0]));
  const manifest = files.find((file) => /^[^/]+\/SKILL\.md$/.test(file.name));
  if (files.length === 0 || directories.size !== 1 || !manifest) return error(400, "invalid_request_error", "files must be one folder with a SKILL.md at its top");
  const [, name = "skill", description = ""] = /name:\s*(.+)\n(?:.*\n)*?description:\s*(.+)/.exec(await manifest.text()) ?? [];
  const contents = await Promise.all(files.map(async (file) => [file.name, new Uint8Array(await file.arrayBuffer())] as const));
  return { id: `skillver_${crypto.randomUUID().slice(0, 12)}`, type: "skill_version", skill_id: skillId, name, description, created_at: new Date().toISOString(), files: new Map(contents) };
}

/** Answers `/v1/skills...` (`parts` after `skills`). */
export async function skillRoute(skills: Map<string, Skill>, method: string, parts: string[], request: Request): Promise<Response> {
  const [id, versions, version, content] = parts;
  if (!id && method === "POST") {
    const skillId = `skill_${crypto.randomUUID().slice(0, 12)}`;
    const displayName = (await request.clone().formData()).get("display_name");
    const first = await uploadedVersion(skillId, request);
    if (first instanceof Response) return first;
    const now = new Date().toISOString();
    const display_name = typeof displayName === "string" ? displayName : first.name;
    const skill: Skill = { object: { id: skillId, type: "skill", display_name, latest_version_id: first.id, source: "custom", created_at: now, updated_at: now }, versions: new Map([[first.id, first]]) };
    skills.set(skillId, skill);
    return Response.json(skill.object);
  }
  if (!id) return Response.json(page([...skills.values()].map((skill) => skill.object)));
  const skill = skills.get(id);
  if (!skill) return error(404, "not_found_error", `skill ${id} not found`);
  if (!versions) {
    if (method !== "DELETE") return Response.json(skill.object);
    if (skill.versions.size > 0) return error(400, "invalid_request_error", "delete every version of a skill before the skill");
    skills.delete(id);
    return Response.json({ id, type: "skill_deleted" });
  }
  if (!version && method === "POST") {
    const added = await uploadedVersion(id, request);
    if (added instanceof Response) return added;
    skill.versions.set(added.id, added);
    skill.object.latest_version_id = added.id;
    return Response.json(versionView(added));
  }
  if (!version) return Response.json(page([...skill.versions.values()].map(versionView)));
  const found = skill.versions.get(version);
  if (!found) return error(404, "not_found_error", `version ${version} of skill ${id} not found`);
  if (method === "DELETE") {
    skill.versions.delete(version);
    return Response.json({ id: version, type: "skill_version_deleted" });
  }
  if (content) return new Response(skillArchive(found), { headers: { "content-type": "application/zip" } });
  return Response.json(versionView(found));
}
