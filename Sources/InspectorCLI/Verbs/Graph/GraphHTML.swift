import BinaryPlist
import ArchiveInspection

/// The HTML form of ``ObjectGraphModel`` (`keyedarchive graph --format html`): one self-contained page, no
/// network, no outside script. The graph is embedded as JSON in a `<script type="application/json">` block
/// and an inline script draws a collapsible tree from the roots: each object's `<details>` opens on its first
/// path; shared and cyclic references are links that reveal and jump to the object; a search box finds
/// objects by class or key. Text from the archive is only ever set as `textContent`, never parsed as HTML.
///
/// Loaded with the fragment `#selftest`, the page expands the first root, follows the first shared (or
/// cyclic) link, checks from the DOM that the target is open and highlighted, and writes `SELFTEST PASS ...`
/// or `SELFTEST FAIL ...` into `<pre id="selftest">` (what `Scripts/check-graph-html.sh` reads).
enum GraphHTML {
    static func render(_ model: ObjectGraphModel, title: String) -> String {
        var w = JSONWriter(pretty: false)
        w.open(.object)
        w.member("archiver", first: true)
        w.string(model.archiver)
        w.member("rootScalars")
        pairs(model.rootScalars, &w)
        w.member("rootEdges")
        edges(model.rootEdges, &w)
        w.member("nodes")
        w.open(.array)
        for (i, node) in model.nodes.enumerated() {
            w.item(first: i == 0)
            w.open(.object)
            w.member("uid", first: true)
            w.raw(String(node.uid))
            w.member("title")
            w.string(node.title)
            w.member("chain")
            w.plist(.array(node.chain.map { .string($0) }))
            w.member("scalars")
            pairs(node.scalars, &w)
            w.member("edges")
            edges(node.edges, &w)
            w.member("parent")
            w.raw(String(node.parent))
            w.member("shared")
            w.raw(node.shared ? "true" : "false")
            w.close(.object, empty: false)
        }
        w.close(.array, empty: model.nodes.isEmpty)
        w.close(.object, empty: false)
        // "</" cannot end the script element inside JSON text: write it "<\/", which JSON reads the same.
        let data = replacing("</", with: "<\\/", in: Substring(w.text))
        // The page's own markers only: the title goes before the data, which is placed once and not searched.
        guard let marker = range(of: "@@DATA@@", in: Substring(page)) else { return page }
        return replacing("@@TITLE@@", with: escapeHTML(title), in: page[..<marker.lowerBound]) + data
            + page[marker.upperBound...] + "\n"
    }

    // The standard library's `replacing(_:with:)` and `firstRange(of:)` need macOS 13 / iOS 16; these two
    // compare UTF-8 bytes (every needle here is ASCII, so a match always starts and ends on a character).

    /// The first range of `needle` in `text`, or `nil`.
    static func range(of needle: String, in text: Substring) -> Range<String.Index>? {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first else { return nil }
        let bytes = text.utf8
        var start = bytes.startIndex
        while let candidate = bytes[start...].firstIndex(of: first) {
            if bytes[candidate...].starts(with: pattern) {
                return candidate..<bytes.index(candidate, offsetBy: pattern.count)
            }
            start = bytes.index(after: candidate)
        }
        return nil
    }

    /// `text` with every `needle` replaced by `replacement`, left to right.
    static func replacing(_ needle: String, with replacement: String, in text: Substring) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var rest = text
        while let found = range(of: needle, in: rest) {
            result += rest[..<found.lowerBound]
            result += replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    private static func pairs(_ items: [ObjectGraphModel.Scalar], _ w: inout JSONWriter) {
        w.open(.array)
        for (i, item) in items.enumerated() {
            w.item(first: i == 0)
            w.plist(.array([.string(item.label), .string(item.value)]))
        }
        w.close(.array, empty: items.isEmpty)
    }

    private static func edges(_ items: [ObjectGraphModel.Edge], _ w: inout JSONWriter) {
        w.open(.array)
        for (i, edge) in items.enumerated() {
            w.item(first: i == 0)
            w.plist(.array([.string(edge.label), .integer(PlistInteger(edge.target)), .string(edge.kind.description)]))
        }
        w.close(.array, empty: items.isEmpty)
    }

    static func escapeHTML(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    private static let page = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>@@TITLE@@ - keyed archive graph</title>
<style>
body { font: 13px/1.45 -apple-system, "Helvetica Neue", Helvetica, Arial, sans-serif; margin: 0; color: #222;
       display: flex; flex-direction: column; height: 100vh; overflow: hidden; }
header { flex: none; background: #f4f4f7; border-bottom: 1px solid #ccc; padding: 8px 12px; }
header h1 { font-size: 15px; margin: 0 0 6px 0; }
header input { width: 22em; font: inherit; padding: 2px 4px; }
header button { font: inherit; }
#results { max-height: 12em; overflow: auto; margin: 4px 0 0 0; padding-left: 1.2em; }
main { flex: 1; overflow: auto; padding: 8px 12px; position: relative; }
details { margin-left: 1.1em; }
details > summary { cursor: pointer; list-style-position: outside; }
summary .step { color: #555; }
summary .cls { font-weight: 600; color: #114; }
summary .uid { color: #888; font-size: 11px; }
.field { margin-left: 2.3em; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
.field .key { color: #7a3e00; }
.ref { margin-left: 2.3em; }
a.shared { color: #0645ad; }
a.back { color: #b00; font-weight: 600; }
.flag { font-size: 11px; border-radius: 3px; padding: 0 3px; margin-left: 4px; }
.flag.shared { background: #dde8ff; color: #0645ad; }
.hit { background: #fff3a0; outline: 2px solid #e0b000; }
#selftest { flex: none; margin: 8px 12px; padding: 4px; background: #eef; }
#selftest:empty { display: none; }
</style>
</head>
<body>
<header>
<h1>@@TITLE@@</h1>
<label>Search class or key: <input id="search" type="search" placeholder="e.g. NSWindowTemplate or NSTitle"></label>
<button id="expand">Expand all</button> <button id="collapse">Collapse all</button>
<span id="summary"></span>
<ol id="results"></ol>
</header>
<pre id="selftest"></pre>
<main id="tree"></main>
<script type="application/json" id="graph">@@DATA@@</script>
<script>
"use strict";
const graph = JSON.parse(document.getElementById("graph").textContent);
const byUID = new Map();
graph.nodes.forEach(n => byUID.set(n.uid, n));
const elements = new Map();  // uid -> the <details> of its first path, once drawn

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function fieldLine(label, value) {
  const d = el("div", "field");
  d.append(el("span", "key", label), document.createTextNode(" = " + value));
  return d;
}

// A reference to an object drawn elsewhere: a link that reveals it.
function refLine(label, uid, kind) {
  const d = el("div", "ref");
  const n = byUID.get(uid);
  d.append(el("span", "step", label + " "));
  const a = el("a", kind, (kind === "back" ? "\u21BA cycle to " : "\u2192 shared ") + (n ? n.title : "?") + " #" + uid);
  a.href = "#o" + uid;
  a.dataset.target = uid;
  a.addEventListener("click", ev => { ev.preventDefault(); reveal(uid); });
  d.append(a);
  return d;
}

// The <details> of an object on its first path; its content is drawn when first opened.
function objectNode(label, uid) {
  const n = byUID.get(uid);
  const det = el("details");
  det.id = "o" + uid;
  det.dataset.uid = uid;
  const sum = el("summary");
  sum.append(el("span", "step", label + " "), el("span", "cls", n.title), el("span", "uid", " #" + uid));
  if (n.chain.length > 1) sum.title = n.chain.join(" < ");
  if (n.shared) sum.append(el("span", "flag shared", "shared"));
  det.append(sum);
  det.addEventListener("toggle", () => { if (det.open) fill(det, n); });
  elements.set(uid, det);
  return det;
}

function fill(det, n) {
  if (det.dataset.filled) return;
  det.dataset.filled = "1";
  n.scalars.forEach(([k, v]) => det.append(fieldLine(k, v)));
  n.edges.forEach(([label, target, kind]) => {
    det.append(kind === "tree" ? objectNode(label, target) : refLine(label, target, kind));
  });
}

function drawRoots() {
  const tree = document.getElementById("tree");
  graph.rootScalars.forEach(([k, v]) => tree.append(fieldLine(k, v)));
  graph.rootEdges.forEach(([label, target, kind]) => {
    tree.append(kind === "tree" ? objectNode(label, target) : refLine(label, target, kind));
  });
}

// Opens every object on the first path to `uid`, then scrolls to it and highlights it.
function reveal(uid) {
  const chain = [];
  for (let u = uid; u !== -1 && byUID.has(u) && chain.length <= graph.nodes.length; u = byUID.get(u).parent) chain.push(u);
  chain.reverse().forEach(u => {
    const det = elements.get(u);
    if (det) { det.open = true; fill(det, byUID.get(u)); }
  });
  const target = elements.get(uid);
  if (!target) return null;
  document.querySelectorAll(".hit").forEach(e => e.classList.remove("hit"));
  target.classList.add("hit");
  // The tree scrolls inside <main>: put the object a third of the way down.
  const tree = document.getElementById("tree");
  tree.scrollTop += target.getBoundingClientRect().top - tree.getBoundingClientRect().top - tree.clientHeight / 3;
  history.replaceState(null, "", "#o" + uid);
  return target;
}

function search(query) {
  const list = document.getElementById("results");
  list.textContent = "";
  const q = query.trim().toLowerCase();
  if (!q) return 0;
  let found = 0;
  for (const n of graph.nodes) {
    const keys = n.scalars.map(s => s[0]).concat(n.edges.map(e => e[0]));
    const hit = n.chain.concat([n.title]).some(c => c.toLowerCase().includes(q))
      || keys.some(k => k.toLowerCase().includes(q));
    if (!hit) continue;
    found++;
    if (found > 200) continue;
    const li = el("li");
    const a = el("a", "shared", n.title + " #" + n.uid);
    a.href = "#o" + n.uid;
    a.addEventListener("click", ev => { ev.preventDefault(); reveal(n.uid); });
    li.append(a);
    list.append(li);
  }
  if (found > 200) list.append(el("li", "", "... " + (found - 200) + " more"));
  return found;
}

function setAll(open) {
  if (open) {
    // Draw every node on its first path (at most once each), then open them.
    graph.nodes.forEach(n => { const d = elements.get(n.uid); if (d) { d.open = true; fill(d, n); } });
  } else {
    document.querySelectorAll("details").forEach(d => d.open = false);
  }
}

function selftest() {
  const out = document.getElementById("selftest");
  try {
    const first = document.querySelector("#tree > details");
    if (!first) throw new Error("no root object");
    first.open = true;
    fill(first, byUID.get(Number(first.dataset.uid)));
    const expanded = first.querySelectorAll(":scope > details, :scope > .field, :scope > .ref").length;
    if (expanded === 0) throw new Error("expanding the root drew nothing");
    // The shared (or cyclic) reference whose target lies deepest on its first path (the first such in walk
    // order): reveal its holder, then follow the link, which must open every object on the way to the target.
    const depth = uid => { let d = 0; for (let u = uid; u !== -1 && d <= graph.nodes.length; u = byUID.get(u).parent) d++; return d; };
    let holder = null, target = null, deepest = -1;
    for (const n of graph.nodes) {
      for (const e of n.edges) {
        if (e[2] === "tree") continue;
        const d = depth(e[1]);
        if (d > deepest) { deepest = d; holder = n.uid; target = e[1]; }
      }
    }
    if (holder === null) throw new Error("the graph has no shared reference");
    reveal(holder);
    const link = elements.get(holder).querySelector(":scope > .ref > a[data-target='" + target + "']");
    if (!link) throw new Error("no link to #" + target + " in #" + holder);
    document.querySelectorAll("#tree details").forEach(d => { if (d !== elements.get(holder) && !d.contains(elements.get(holder))) d.open = false; });
    const closedBefore = document.getElementById("o" + target) ? !document.getElementById("o" + target).open : true;
    link.click();
    const det = document.getElementById("o" + target);
    if (!det || !det.open || !det.classList.contains("hit")) throw new Error("the link did not open #" + target);
    for (let p = det.parentElement; p && p.id !== "tree"; p = p.parentElement) {
      if (p.tagName === "DETAILS" && !p.open) throw new Error("an ancestor of #" + target + " is closed");
    }
    const hits = search(byUID.get(target).title);
    if (hits < 1) throw new Error("search found nothing for " + byUID.get(target).title);
    out.textContent = "SELFTEST PASS expanded=" + expanded + " followed=#" + holder + "->#" + target + " depth=" + deepest + " closedBefore=" + closedBefore
      + " class=" + byUID.get(target).title + " search=" + hits;
  } catch (e) {
    out.textContent = "SELFTEST FAIL " + e.message;
  }
}

drawRoots();
document.getElementById("summary").textContent =
  graph.nodes.length + " objects, " + graph.nodes.filter(n => n.shared).length + " shared; " + graph.archiver;
document.getElementById("search").addEventListener("input", ev => search(ev.target.value));
document.getElementById("expand").addEventListener("click", () => setAll(true));
document.getElementById("collapse").addEventListener("click", () => setAll(false));
if (location.hash === "#selftest") {
  // After the first layout, so that the jump scrolls a painted page (what a screenshot then shows).
  window.addEventListener("load", () => requestAnimationFrame(() => selftest()));
} else if (location.hash.startsWith("#o")) {
  reveal(Number(location.hash.slice(2)));
}
</script>
</body>
</html>
"""#
}
