// The SPARQL editor: CodeMirror 6 with the SPARQL mode of @codemirror/legacy-modes,
// prefix completion from the graph's namespaces, and Ctrl/Cmd-Enter to run.

import { autocompletion, closeBrackets, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { sparql } from "@codemirror/legacy-modes/mode/sparql";
import { EditorSelection, EditorState } from "@codemirror/state";
import { tags } from "@lezer/highlight";
import { EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";

const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: "#7a3e9d", fontWeight: "600" },
  { tag: tags.variableName, color: "#0b6e4f" },
  { tag: tags.string, color: "#a4501c" },
  { tag: tags.number, color: "#1f5fa6" },
  { tag: tags.comment, color: "#7b8794", fontStyle: "italic" },
  { tag: [tags.atom, tags.url], color: "#1f5fa6" },
  { tag: tags.operator, color: "#444" },
]);

/**
 * Creates an editor in `parent`. `onRun` is called on Ctrl/Cmd-Enter; `prefixes()` returns
 * `[{prefix, namespace}]` for completion after `PREFIX ` and of `prefix:` names.
 */
export function createEditor(parent, { doc = "", onRun, prefixes }) {
  const completePrefixes = (context) => {
    const word = context.matchBefore(/[A-Za-z][\w-]*:?/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const line = context.state.doc.lineAt(context.pos).text.slice(0, context.pos - context.state.doc.lineAt(context.pos).from);
    const declaring = /PREFIX\s+[\w-]*$/i.test(line);
    const options = prefixes().map(({ prefix, namespace }) => ({
      label: `${prefix}:`,
      detail: namespace,
      apply: declaring ? `${prefix}: <${namespace}>` : `${prefix}:`,
      type: "namespace",
    }));
    return { from: word.from, options, validFor: /^[\w-]*:?$/ };
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        StreamLanguage.define(sparql),
        syntaxHighlighting(highlight),
        autocompletion({ override: [completePrefixes] }),
        keymap.of([
          { key: "Mod-Enter", run: () => (onRun(), true) },
          ...completionKeymap,
          ...defaultKeymap,
          ...historyKeymap,
          indentWithTab,
        ]),
        EditorView.lineWrapping,
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    /** Puts the cursor at a 1-based line and column (a syntax error's place). */
    focusAt(line, column) {
      const doc = view.state.doc;
      const target = doc.line(Math.min(Math.max(line, 1), doc.lines));
      const pos = Math.min(target.from + Math.max(column - 1, 0), target.to);
      view.dispatch({ selection: EditorSelection.cursor(pos), scrollIntoView: true });
      view.focus();
    },
  };
}
