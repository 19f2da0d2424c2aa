// Bar and pie charts of a two-column answer (label, number). The chart is described as the
// same Vega-Lite spec the MCP `analyze` mode returns, and drawn here as SVG by a renderer for
// exactly those two specs: the Vega runtime would add ~800 KB to the page and needs `eval`,
// which the console's Content-Security-Policy forbids.

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"];

/** The Vega-Lite spec of MCP `analyze` for `values` = [{category, value}]. */
export function vegaLiteSpec(kind, values, measure) {
  const spec = { $schema: "https://vega.github.io/schema/vega-lite/v5.json", data: { values } };
  if (kind === "pie") {
    spec.mark = { type: "arc", tooltip: true };
    spec.encoding = { theta: { field: "value", type: "quantitative" }, color: { field: "category", type: "nominal" } };
  } else {
    spec.mark = { type: "bar", tooltip: true };
    spec.encoding = { x: { field: "category", type: "nominal", sort: "-y" }, y: { field: "value", type: "quantitative", title: measure } };
  }
  return spec;
}

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Draws a spec made by `vegaLiteSpec` as an SVG element. */
export function renderSpec(spec) {
  const type = spec.mark.type;
  if (type === "arc") {
    return pie(spec.data.values, spec.encoding.theta.field, spec.encoding.color.field);
  }
  return bars(spec.data.values, spec.encoding.x.field, spec.encoding.y.field, spec.encoding.y.title || spec.encoding.y.field);
}

function bars(values, labelField, valueField, title) {
  const rows = [...values].sort((a, b) => b[valueField] - a[valueField]).slice(0, 50);
  const width = 760;
  const height = 320;
  const left = 60;
  const bottom = 90;
  const max = Math.max(0, ...rows.map((r) => r[valueField]));
  const min = Math.min(0, ...rows.map((r) => r[valueField]));
  const span = max - min || 1;
  const y = (v) => 10 + (height - bottom - 10) * (1 - (v - min) / span);
  const step = (width - left) / Math.max(rows.length, 1);
  const svg = el("svg", { class: "chart bar", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": `bar chart of ${title}` });
  svg.append(el("line", { x1: left, x2: width, y1: y(0), y2: y(0), stroke: "#999" }));
  for (const tick of [min, (min + max) / 2, max]) {
    svg.append(el("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", class: "tick" }, formatNumber(tick)));
  }
  rows.forEach((row, i) => {
    const v = row[valueField];
    const x = left + i * step + step * 0.1;
    const rect = el("rect", { x, y: Math.min(y(v), y(0)), width: step * 0.8, height: Math.abs(y(v) - y(0)), fill: COLORS[0] });
    rect.append(el("title", {}, `${row[labelField]}: ${v}`));
    svg.append(rect);
    const label = el("text", { x: x + step * 0.4, y: height - bottom + 14, "text-anchor": "end", transform: `rotate(-40 ${x + step * 0.4} ${height - bottom + 14})`, class: "label" }, truncate(row[labelField]));
    svg.append(label);
  });
  svg.append(el("text", { x: 12, y: (height - bottom) / 2, transform: `rotate(-90 12 ${(height - bottom) / 2})`, "text-anchor": "middle", class: "axis" }, title));
  return svg;
}

function pie(values, valueField, labelField) {
  const rows = values.filter((r) => r[valueField] > 0);
  const total = rows.reduce((sum, r) => sum + r[valueField], 0) || 1;
  const size = 320;
  const r = 140;
  const c = size / 2;
  const svg = el("svg", { class: "chart pie", viewBox: `0 0 ${size + 300} ${size}`, width: size + 300, height: size, role: "img", "aria-label": "pie chart" });
  let angle = -Math.PI / 2;
  rows.forEach((row, i) => {
    const share = row[valueField] / total;
    const end = angle + share * 2 * Math.PI;
    const color = COLORS[i % COLORS.length];
    const path = share >= 0.9999
      ? el("circle", { cx: c, cy: c, r, fill: color })
      : el("path", {
        d: `M${c},${c} L${c + r * Math.cos(angle)},${c + r * Math.sin(angle)} A${r},${r} 0 ${share > 0.5 ? 1 : 0} 1 ${c + r * Math.cos(end)},${c + r * Math.sin(end)} Z`,
        fill: color,
      });
    path.append(el("title", {}, `${row[labelField]}: ${row[valueField]} (${(share * 100).toFixed(1)} %)`));
    svg.append(path);
    if (i < 14) {
      svg.append(el("rect", { x: size + 20, y: 20 + i * 20, width: 12, height: 12, fill: color }));
      svg.append(el("text", { x: size + 38, y: 31 + i * 20, class: "label" }, `${truncate(row[labelField])} (${row[valueField]})`));
    }
    angle = end;
  });
  return svg;
}

function truncate(text) {
  const s = String(text);
  return s.length > 24 ? `${s.slice(0, 23)}…` : s;
}

function formatNumber(n) {
  return Math.abs(n) >= 1000 ? n.toLocaleString("en", { maximumFractionDigits: 0 }) : String(Math.round(n * 100) / 100);
}
