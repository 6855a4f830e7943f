import { useState } from "preact/hooks";
import { ApiError } from "../api/client";
import { useFeedback } from "../components/feedback";

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export type Save = (work: () => Promise<unknown>, done: string) => Promise<boolean>;

/**
 * Runs a write, says how it went in a toast and reloads what it changed; a 400 that names a
 * field is kept so the form shows it beside that field.
 */
export function useSave(reload: () => void): { save: Save; fieldError?: ApiError; errorFor(field: string): string | undefined } {
  const { toast } = useFeedback();
  const [fieldError, setFieldError] = useState<ApiError>();
  const save: Save = async (work, done) => {
    setFieldError(undefined);
    try {
      await work();
      toast(done);
      reload();
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 400 && error.param) setFieldError(error);
      toast(`Not saved: ${messageOf(error)}`, "error");
      return false;
    }
  };
  const errorFor = (field: string) => (fieldError?.param === field || fieldError?.param?.startsWith(`${field}.`) || fieldError?.param?.startsWith(`${field}[`) ? fieldError.message : undefined);
  return { save, fieldError, errorFor };
}
