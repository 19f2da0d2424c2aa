// SPARQL 1.1 TSV results, read as they stream in: one line per row, terms in their
// N-Triples/Turtle spelling. TSV (not JSON) because it can be parsed line by line, so a
// million-row answer shows its first rows at once and is counted, not held whole.

/** Parses one TSV term into the SPARQL JSON term shape (`{type, value, datatype?, "xml:lang"?}`). */
export function parseTerm(text) {
  if (text === "") return undefined;
  if (text.startsWith("<<")) return { type: "triple-text", value: text };
  if (text.startsWith("<") && text.endsWith(">")) return { type: "uri", value: text.slice(1, -1) };
  if (text.startsWith("_:")) return { type: "bnode", value: text.slice(2) };
  if (text.startsWith('"')) {
    const end = text.lastIndexOf('"');
    const value = unescape(text.slice(1, end));
    const rest = text.slice(end + 1);
    if (rest.startsWith("@")) return { type: "literal", value, "xml:lang": rest.slice(1) };
    if (rest.startsWith("^^<")) return { type: "literal", value, datatype: rest.slice(3, -1) };
    return { type: "literal", value };
  }
  const xsd = "http://www.w3.org/2001/XMLSchema#";
  if (text === "true" || text === "false") return { type: "literal", value: text, datatype: `${xsd}boolean` };
  if (/^[+-]?\d+$/.test(text)) return { type: "literal", value: text, datatype: `${xsd}integer` };
  if (/^[+-]?\d*\.\d+$/.test(text)) return { type: "literal", value: text, datatype: `${xsd}decimal` };
  if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(text)) return { type: "literal", value: text, datatype: `${xsd}double` };
  return { type: "literal", value: text };
}

function unescape(text) {
  return text.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, e) => {
    switch (e[0]) {
      case "t": return "\t";
      case "n": return "\n";
      case "r": return "\r";
      case "b": return "\b";
      case "f": return "\f";
      case "u":
      case "U": return String.fromCodePoint(parseInt(e.slice(1), 16));
      default: return e;
    }
  });
}

/**
 * Reads a TSV response. Calls `onHead(vars)` once, then `onRows(rows)` with batches of
 * parsed rows as they arrive. A body that is a single `true`/`false` line is an ASK answer:
 * `onBoolean(value)` instead. Resolves with the number of rows.
 */
export async function readTsv(response, { onHead, onRows, onBoolean }) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let vars = null;
  let count = 0;
  const take = (lines) => {
    const rows = [];
    for (const line of lines) {
      if (vars === null) {
        if (/^(true|false)$/.test(line.trim()) && !line.startsWith("?")) {
          onBoolean(line.trim() === "true");
          vars = [];
          continue;
        }
        vars = line === "" ? [] : line.split("\t").map((v) => v.replace(/^[?$]/, ""));
        onHead(vars);
        continue;
      }
      const cells = line.split("\t");
      const row = {};
      vars.forEach((v, i) => {
        const term = parseTerm(cells[i] ?? "");
        if (term) row[v] = term;
      });
      rows.push(row);
    }
    count += rows.length;
    if (rows.length) onRows(rows);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const cut = buffer.lastIndexOf("\n");
    if (cut >= 0) {
      take(buffer.slice(0, cut).split("\n").map((l) => l.replace(/\r$/, "")));
      buffer = buffer.slice(cut + 1);
    }
  }
  if (buffer.length) take([buffer.replace(/\r$/, "")]);
  else if (vars === null) take([""]);
  return count;
}
