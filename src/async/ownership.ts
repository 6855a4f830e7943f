import { sha256Hex } from "../crypto/sha256-hex";
import { presentedVirtualKey } from "../governance/caller";

/** Who owns a job: a hash of the submitter's virtual key (never the key), or undefined without one. */
export function ownerOf(headers: Headers): string | undefined {
  const key = presentedVirtualKey(headers);
  return key === undefined ? undefined : sha256Hex(key);
}
