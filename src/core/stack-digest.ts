/**
 * Reduces a stack trace or stderr dump to one line, "Type @ file:line: message head", so that
 * failed attempts can go into an extraction prompt at a fraction of their token cost.
 */

interface Frame {
  file: string;
  line: number;
}

interface Digest {
  type: string;
  message: string;
  frame: Frame | null;
}

// Python 3.13 colours tracebacks when stderr is a terminal; captured output keeps the escapes.
const ANSI_RE = /\x1b\[[0-9;]*[A-Za-z]/g;

const PY_FRAME_RE = /^\s*File "([^"]+)", line (\d+)(?:, in .*)?$/;
const PY_EXCEPTION_RE = /^([A-Za-z_][\w.]*)(?::\s?(.*))?$/;
const PY_LIBRARY_RE = /(?:[\\/](?:site|dist)-packages[\\/]|[\\/]lib[\\/]python\d|^<frozen |^<string>$)/;

// Module prefixes ("java.base/", "app//", "lib@1.2/") come before the class in Java 9+ frames.
const JAVA_FRAME_RE = /^\s*at\s+(?:[\w$.@-]*\/)*([\w$.<>]+)\(([^():]*)(?::(\d+))?\)\s*$/;
const JAVA_HEADER_RE = /^(?:Exception in thread "[^"]*"\s+)?(?:Caused by:\s+)?([\w$]+(?:\.[\w$]+)*)(?::\s*(.*))?$/;
const JAVA_RUNTIME_RE = /^(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala)\./;
// Frameworks and drivers are not the user's code either, but beat a JDK frame when nothing else is left.
const JAVA_THIRD_PARTY_RE =
  /^(?:org\.(?:springframework|apache|hibernate|postgresql|junit|eclipse|slf4j|gradle)|com\.(?:mysql|fasterxml|zaxxer|google\.common)|io\.(?:netty|grpc|micronaut|quarkus)|junit|okhttp3|reactor|ch\.qos)\./;

const NODE_FRAME_RE = /^\s*at\s+(?:async\s+)?(?:(?:.*?)\s+\()?(.+?):(\d+):(\d+)\)?\s*$/;
const NODE_HEADER_RE = /^\s*(?:\[cause\]:\s*)?(?:Uncaught\s+)?([A-Za-z_$][\w$]*)(?:\s+\[[\w-]+\])?:\s?(.*)$/;
const NODE_LIBRARY_RE = /(?:^node:|^internal\/|[\\/]node_modules[\\/]|^<anonymous>$|^native$)/;

export function digestError(text: string, maxMessage = 200): string {
  const lines = normalise(text);
  const digest = digestPython(lines) ?? digestJava(lines) ?? digestNode(lines);
  if (!digest) return truncate(lines.find((l) => l.trim() !== "")?.trim() ?? "", maxMessage);
  return format(digest, maxMessage);
}

/**
 * Only traces are rewritten; short plain messages are already their own digest, and cutting a long
 * non-trace to its first line is still better than sending it whole.
 */
export function digestIfTrace(text: string, maxLength = 300, maxMessage = 200): string {
  const lines = normalise(text);
  const digest = digestPython(lines) ?? digestJava(lines) ?? digestNode(lines);
  if (digest) return format(digest, maxMessage);
  if (text.length <= maxLength) return text;
  return digestError(text, maxMessage);
}

function normalise(text: string): string[] {
  return text.replace(ANSI_RE, "").replace(/\r\n?/g, "\n").split("\n");
}

function format(d: Digest, maxMessage: number): string {
  const where = d.frame ? ` @ ${basename(d.frame.file)}:${d.frame.line}` : "";
  const message = truncate(d.message.replace(/\s+/g, " ").trim(), maxMessage);
  return message ? `${d.type}${where}: ${message}` : `${d.type}${where}`;
}

function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  return max <= 1 ? s.slice(0, max) : `${s.slice(0, max - 1)}…`;
}

function basename(path: string): string {
  const clean = path.replace(/^file:\/\//, "");
  return clean.slice(Math.max(clean.lastIndexOf("/"), clean.lastIndexOf("\\")) + 1) || clean;
}

function digestPython(lines: string[]): Digest | null {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^\s*Traceback \(most recent call last\):\s*$/.test(lines[i]!)) {
      start = i;
      break;
    }
  }
  if (start < 0) {
    // A truncated capture may have lost the header but still show frames.
    start = lines.findIndex((l) => PY_FRAME_RE.test(l));
    if (start < 0) return null;
  }

  const frames: Frame[] = [];
  let lastFrameIdx = -1;
  for (let i = start; i < lines.length; i++) {
    const m = PY_FRAME_RE.exec(lines[i]!);
    if (m) {
      frames.push({ file: m[1]!, line: Number(m[2]) });
      lastFrameIdx = i;
    }
  }
  if (frames.length === 0) return null;

  // Frame lines are followed by indented source and caret lines; the exception is the first
  // unindented line after the last frame. A multi-line message keeps only its first line.
  let type = "";
  let message = "";
  for (let i = lastFrameIdx + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || /^\s/.test(line)) continue;
    const m = PY_EXCEPTION_RE.exec(line.trim());
    if (m) {
      type = m[1]!;
      message = m[2] ?? "";
    } else {
      type = "Error";
      message = line.trim();
    }
    break;
  }
  if (!type) type = "Traceback";

  const user = frames.filter((f) => !PY_LIBRARY_RE.test(f.file));
  return { type, message, frame: (user.length > 0 ? user : frames).at(-1)! };
}

interface JavaBlock {
  type: string;
  message: string;
  frames: Frame[];
  userFrames: Frame[];
  thirdPartyFrames: Frame[];
}

function digestJava(lines: string[]): Digest | null {
  const firstFrame = lines.findIndex((l) => JAVA_FRAME_RE.test(l));
  if (firstFrame < 0) return null;

  const blocks: JavaBlock[] = [];
  // The top-level header is the nearest header-shaped line above the first frame: log prefixes and
  // wrapped message lines may sit between them.
  let header: RegExpExecArray | null = null;
  for (let i = firstFrame - 1; i >= 0 && !header; i--) {
    const line = lines[i]!.trim();
    if (/^Exception in thread /.test(line) || /^[\w$]+(?:\.[\w$]+)+(?::|$)/.test(line)) {
      header = JAVA_HEADER_RE.exec(line);
    }
  }
  blocks.push(newBlock(header?.[1] ?? "Exception", header?.[2] ?? ""));

  for (let i = firstFrame; i < lines.length; i++) {
    const line = lines[i]!;
    // Only unindented "Caused by:" belongs to the main chain; indented ones sit under "Suppressed:".
    if (line.startsWith("Caused by:")) {
      const m = JAVA_HEADER_RE.exec(line.trim());
      blocks.push(newBlock(m?.[1] ?? "Exception", m?.[2] ?? ""));
      continue;
    }
    if (/^\s+Suppressed:/.test(line)) {
      // Skip the whole suppressed section: its frames are more deeply indented than the chain's.
      const indent = line.search(/\S/);
      while (i + 1 < lines.length && lines[i + 1]!.search(/\S/) > indent) i++;
      continue;
    }
    const m = JAVA_FRAME_RE.exec(line);
    if (!m || !m[3]) continue;
    const frame = { file: m[2]!, line: Number(m[3]) };
    const block = blocks.at(-1)!;
    block.frames.push(frame);
    if (JAVA_THIRD_PARTY_RE.test(m[1]!)) block.thirdPartyFrames.push(frame);
    else if (!JAVA_RUNTIME_RE.test(m[1]!)) block.userFrames.push(frame);
  }

  const root = blocks.at(-1)!;
  // A root cause thrown inside a library elides the shared tail ("... 5 more"), so the nearest
  // user frame is found by walking back out through the enclosing exceptions.
  let frame: Frame | null = null;
  for (let b = blocks.length - 1; b >= 0 && !frame; b--) frame = blocks[b]!.userFrames[0] ?? null;
  for (let b = blocks.length - 1; b >= 0 && !frame; b--) frame = blocks[b]!.thirdPartyFrames[0] ?? null;
  frame ??= root.frames[0] ?? null;
  return { type: simpleName(root.type), message: root.message, frame };
}

function newBlock(type: string, message: string): JavaBlock {
  return { type, message, frames: [], userFrames: [], thirdPartyFrames: [] };
}

function simpleName(qualified: string): string {
  return qualified.slice(qualified.lastIndexOf(".") + 1);
}

function digestNode(lines: string[]): Digest | null {
  const frameAt = (i: number) => NODE_FRAME_RE.exec(lines[i] ?? "");
  // With `[cause]:` chains the innermost cause is printed last, so the last header that is
  // directly followed by frames is the root of the failure.
  let headerIdx = -1;
  for (let i = 0; i < lines.length; i++) {
    if (NODE_HEADER_RE.test(lines[i]!) && !frameAt(i) && frameAt(i + 1)) headerIdx = i;
  }
  let type = "Error";
  let message = "";
  let firstFrame = headerIdx + 1;
  if (headerIdx >= 0) {
    const m = NODE_HEADER_RE.exec(lines[headerIdx]!)!;
    type = m[1]!;
    message = m[2] ?? "";
  } else {
    // Multi-line messages separate the header from the frames; take the nearest header above.
    firstFrame = lines.findIndex((_, i) => frameAt(i) !== null);
    if (firstFrame < 0) return null;
    for (let i = firstFrame - 1; i >= 0; i--) {
      const m = NODE_HEADER_RE.exec(lines[i]!);
      if (m) {
        type = m[1]!;
        message = m[2] ?? "";
        break;
      }
    }
  }

  const frames: Frame[] = [];
  const user: Frame[] = [];
  for (let i = firstFrame; i < lines.length; i++) {
    const m = frameAt(i);
    if (!m) {
      if (lines[i]!.trim() === "" || NODE_HEADER_RE.test(lines[i]!)) break;
      continue;
    }
    const frame = { file: m[1]!, line: Number(m[2]) };
    frames.push(frame);
    if (!NODE_LIBRARY_RE.test(m[1]!)) user.push(frame);
  }
  if (frames.length === 0) return null;
  // JavaScript prints the innermost frame first.
  return { type, message, frame: user[0] ?? frames[0] ?? null };
}
