import { z } from "zod";

/**
 * Control characters (C0, DEL, C1) and the Unicode bidirectional controls (LRM/RLM/ALM, the
 * embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069). In a name or an id they make
 * text display differently from what it is (`Trojan Source`): a key named "admin\u202Egnp.exe" or an
 * id that hides a line break. Free text (tasks, answers, trajectories) may hold newlines and tabs;
 * names and ids never need any of these.
 */
export const CONTROL_OR_BIDI_RE = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const PLAIN = "Must not contain control characters or bidirectional-override characters";

/** An identifier the client chooses or refers to: non-blank, no control or bidi characters. */
export const idString = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.trim() !== "", "Must not be blank")
    .refine((s) => !CONTROL_OR_BIDI_RE.test(s), PLAIN);

/** A human-readable name: trimmed, non-empty, no control or bidi characters. */
export const nameString = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !CONTROL_OR_BIDI_RE.test(s), PLAIN);
