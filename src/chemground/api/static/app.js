// chemground web app: asks /ask and draws its Answer JSON; compound pages; dataset review.
// Every text from the server is untrusted (it comes from the KB, papers or a model): the DOM is
// built with el() from text nodes, never with innerHTML, and links are checked by safeHref().
"use strict";

const $ = sel => document.querySelector(sel);
const state = { token: sessionStorage.getItem("chemground-token") || "", options: null, started: 0 };

// -- DOM helpers -------------------------------------------------------------------------------
function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "href") node.setAttribute("href", safeHref(value));
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false || kid === "") continue;
    node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return node;
}
function safeHref(url) {
  const text = String(url);
  if (text.startsWith("/") && !text.startsWith("//")) return text;
  try {
    const parsed = new URL(text);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : "#";
  } catch { return "#"; }
}
// replaceChildren() with nested lists and text, as el() takes its children
const fill = (node, ...kids) => node.replaceChildren(...[...el("div", {}, ...kids).childNodes]);
const fmt = (x, digits = 2) => (typeof x === "number" && isFinite(x) ? String(+x.toFixed(digits)) : x);
const unknown = text => el("span", { class: "unknown" }, text || "not reported");

// -- talking to the server ---------------------------------------------------------------------
function authHeaders(extra) {
  const headers = Object.assign({}, extra || {});
  if (state.token) headers.Authorization = "Bearer " + state.token;
  return headers;
}
async function api(path, options) {
  const opts = Object.assign({}, options || {});
  opts.headers = authHeaders(opts.headers);
  let res;
  try { res = await fetch(path, opts); } catch (error) { return { ok: false, status: 0, detail: String(error) }; }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (res.status === 401) $("#token-row").hidden = false;
  if (!res.ok) {
    const detail = data && data.detail !== undefined ? data.detail : `HTTP ${res.status}`;
    return { ok: false, status: res.status, detail: typeof detail === "string" ? detail : JSON.stringify(detail) };
  }
  return { ok: true, status: res.status, data };
}

// Depictions: an <img> from this server. With an API token an <img> cannot send it, so the
// image is fetched with the token and shown from a blob: URL.
function img(url, alt, cls) {
  const node = el("img", { class: cls, alt: alt || "structure", loading: "eager", decoding: "async" });
  node.addEventListener("error", () => {
    node.replaceWith(el("span", { class: "depiction-missing", title: url }, "no depiction"));
  }, { once: true });
  if (!state.token) { node.src = url; return node; }
  fetch(url, { headers: authHeaders() }).then(r => (r.ok ? r.blob() : Promise.reject(r.status)))
    .then(blob => { node.src = URL.createObjectURL(blob); })
    .catch(() => node.dispatchEvent(new Event("error")));
  return node;
}
const molUrl = (smiles, w = 240, h = 180) => `/depict?smiles=${encodeURIComponent(smiles)}&w=${w}&h=${h}`;
const reactionUrl = (id, h = 150, agents = true) =>
  `/depict/reaction/${encodeURIComponent(id)}?h=${h}${agents ? "" : "&agents=false"}`;
function molImg(smiles, name, size) {
  if (!smiles) return el("span", { class: "depiction-missing" }, "no structure");
  const [w, h, cls] = size === "small" ? [160, 120, "mol small"] : size === "big" ? [360, 270, "mol big"] : [240, 180, "mol"];
  return img(molUrl(smiles, w, h), `structure of ${name || smiles}`, cls);
}
function compoundHref(id, query) {
  if (id !== null && id !== undefined && /^[0-9]+$/.test(String(id))) return `/compound/${id}`;
  return `/?compound=${encodeURIComponent(query || "")}`;
}
function compoundLink(p) {
  const label = p.name || p.smiles || "?";
  if ((p.compound_id === null || p.compound_id === undefined) && !p.smiles && !p.name) return el("span", {}, label);
  return el("a", { href: compoundHref(p.compound_id ?? p.id, p.smiles || p.name) }, label);
}
async function imagesLoaded(root) {
  const pending = [...root.querySelectorAll("img")].filter(i => !i.complete || (!i.src && state.token));
  await Promise.all(pending.map(i => new Promise(done => {
    i.addEventListener("load", done, { once: true });
    i.addEventListener("error", done, { once: true });
    setTimeout(done, 15000);
  })));
}
async function markReady(root, what) {
  await imagesLoaded(root);
  const ms = performance.now() - state.started;
  document.body.dataset.ready = what;
  document.body.dataset.renderMs = ms.toFixed(1);
  document.body.dataset.pageMs = performance.now().toFixed(1);
}

// -- the answer view -----------------------------------------------------------------------------
const STATUS = {
  answered: ["ok", "Answered", "Read from the evidence below."],
  partial: ["warn", "Partial answer", "Only part of the question is matched by the evidence; the closest records are shown."],
  no_evidence: ["bad", "No evidence", "Nothing in the knowledge base supports an answer."],
  not_understood: ["bad", "Not understood", "The question could not be read as something this system answers."],
  unsupported: ["bad", "Unsupported", "The reasoner's answer is not backed by the evidence: do not rely on it."],
  error: ["bad", "Error", "The reasoner failed; the evidence is still shown."],
};
function statusOf(a) {
  const route = (a.trace && a.trace.route) || {};
  if (route.channel === "out_of_scope" && a.status !== "answered")
    return ["bad", "Out of scope", route.why ? `Out of scope: ${route.why}.` : "Nothing here can answer this question."];
  const [cls, label, why] = STATUS[a.status] || ["warn", a.status, ""];
  // passages are found by relevance, never "exact": the cited span below is what to check
  if (a.status === "answered" && a.method === "lit")
    return [cls, "Answered from the papers", "Read from the passages below; the cited sentences are highlighted."];
  if (a.status === "answered" && a.evidence.length && a.evidence.every(e => e.match !== "exact"))
    return ["warn", "Answered from similar records only",
      "No record matches the question exactly: the answer comes from similar ones. Check the evidence before trusting it."];
  if (a.status === "answered" && a.method === "tools") return [cls, "Computed by a tool", "The tool, its arguments and its result are below."];
  if (a.status === "answered" && a.method === "routes") return [cls, "Route found", "Each step is a reaction in the knowledge base."];
  return [cls, label, why];
}
function matchBadge(e) {
  const cls = e.match === "exact" ? "" : "warn";
  return el("span", { class: `badge ${cls}`, title: `score ${fmt(e.score, 3)}` }, e.match, " ", fmt(e.score, 2));
}
function cardHeader(e, title, extra) {
  return el("header", {}, el("h3", {}, title), matchBadge(e), el("span", { class: "meta" }, `${e.kind} ${e.id}`), extra || "");
}
const why = e => (e.why ? el("p", { class: "meta" }, "Why: ", e.why) : "");

function compoundFacts(r) {
  const rows = [
    ["Formula", r.formula], ["Mol. weight", r.molecular_weight !== null && r.molecular_weight !== undefined ? `${fmt(r.molecular_weight)} g/mol` : null],
    ["SMILES", r.smiles ? el("code", {}, r.smiles) : null], ["InChIKey", r.inchikey ? el("code", {}, r.inchikey) : null],
    ["CAS", r.cas], ["PubChem CID", r.pubchem_cid ? el("a", { href: `https://pubchem.ncbi.nlm.nih.gov/compound/${encodeURIComponent(r.pubchem_cid)}`, rel: "noreferrer" }, String(r.pubchem_cid)) : null],
    ["IUPAC name", r.iupac_name],
  ].filter(([, v]) => v !== null && v !== undefined && v !== "");
  return el("dl", { class: "kv" }, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}
function compoundCard(e) {
  const r = e.record || {};
  const name = r.name || r.smiles || e.id;
  const link = el("a", { href: compoundHref(r.id, r.smiles || r.name) }, name);
  return el("article", { class: "card", "data-kind": e.kind },
    cardHeader(e, link),
    el("div", { class: "body" }, molImg(r.smiles, name),
      el("div", { class: "facts" }, compoundFacts(r), r.description ? el("p", {}, clipText(r.description, 400)) : "", why(e))));
}
function clipText(text, n) { text = String(text || ""); return text.length > n ? text.slice(0, n) + " …" : text; }

function people(list) {
  return (list || []).length ? el("span", { class: "chips" }, list.map(p => el("span", { class: "chip" }, compoundLink(p), p.amount ? ` (${p.amount})` : ""))) : null;
}
function conditions(r) {
  const temp = r.temperature_c !== null && r.temperature_c !== undefined ? `${fmt(r.temperature_c, 1)} °C` : r.temperature_text;
  const rows = [
    ["Solvent", people(r.solvents) || unknown()], ["Catalyst", people(r.catalysts) || unknown("none reported")],
    ["Reagents", people(r.reagents) || unknown("none reported")],
    ["Temperature", temp || unknown()], ["Time", r.time_h !== null && r.time_h !== undefined ? `${fmt(r.time_h)} h` : unknown()],
    ["Yield", r.yield_percent !== null && r.yield_percent !== undefined ? `${fmt(r.yield_percent, 1)} %` : unknown()],
  ];
  if (r.atmosphere) rows.push(["Atmosphere", r.atmosphere]);
  if (r.pressure_bar !== null && r.pressure_bar !== undefined) rows.push(["Pressure", `${fmt(r.pressure_bar)} bar`]);
  if (r.ph !== null && r.ph !== undefined) rows.push(["pH", fmt(r.ph, 1)]);
  return el("dl", { class: "kv conditions" }, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}
const PATENT = /^(US|EP|WO|JP|CN|KR|DE|GB|FR|CA|AU)[- ]?\d[\dA-Z-]*$/i;
function sourceBlock(r, provenance) {
  const p = provenance || {};
  const src = String(r.source || p.source || "");
  const patent = (p.patent || (PATENT.test(src.trim()) ? src.trim() : "")).replace(/[- ]/g, "");
  const doi = p.doi || r.doi;
  const bits = [];
  if (patent) bits.push(el("span", {}, "Patent ", el("a", { href: `https://patents.google.com/patent/${encodeURIComponent(patent)}`, rel: "noreferrer" }, patent)));
  else if (src) bits.push(el("span", {}, "Source: ", src));
  if (doi) bits.push(el("span", {}, " DOI ", el("a", { class: "doi", href: `https://doi.org/${String(doi).split("/").map(encodeURIComponent).join("/")}`, rel: "noreferrer" }, String(doi))));
  if (r.dataset && r.dataset !== src) bits.push(el("span", { class: "meta" }, ` (dataset ${r.dataset})`));
  if (p.paragraph !== undefined) bits.push(el("span", { class: "meta" }, ` paragraph ${p.paragraph}`));
  return el("div", { class: "source" }, el("p", {}, bits),
    r.description ? el("blockquote", { class: "paragraph" }, r.description) : "",
    r.notes && !String(r.description || "").includes(r.notes) ? el("p", { class: "meta" }, "Notes: ", r.notes) : "",
    (r.flags || []).length ? el("p", { class: "meta" }, "Flags: ", r.flags.join("; ")) : "");
}
// The evidence carries the source and dataset; a DOI lives in the reaction's own provenance.
async function addDoi(id, node) {
  const reply = await api(`/reaction/${encodeURIComponent(id)}`);
  const provenance = (reply.ok && reply.data.provenance) || {};
  const doi = provenance.doi || (provenance.extra || {}).doi;  // ORD keeps it at the top, CSV/JSONL in extra
  if (!doi || node.querySelector("a.doi")) return;
  node.querySelector("p").append(" DOI ", el("a", { class: "doi", href: `https://doi.org/${String(doi).split("/").map(encodeURIComponent).join("/")}`, rel: "noreferrer" }, String(doi)));
}
function reactionCard(e) {
  const r = e.record || {};
  const title = r.title || r.reaction_class || r.id || e.id;
  const source = sourceBlock(r, e.provenance);
  if (!(e.provenance || {}).doi && !r.doi) addDoi(r.id || e.id, source);
  return el("article", { class: "card", "data-kind": e.kind },
    cardHeader(e, title),
    img(reactionUrl(r.id || e.id), `reaction scheme of ${title}`, "scheme"),
    el("div", { class: "body" },
      el("div", { class: "facts" }, el("div", { class: "role" }, "Reactants"), people(r.reactants) || unknown("none"),
        el("div", { class: "role" }, "Products"), people(r.products) || unknown("none")),
      el("div", { class: "facts" }, conditions(r))),
    why(e), source);
}
function routeCard(e) {
  const r = e.record || {};
  const molecules = r.molecules || [], reactions = r.reactions || [], steps = r.steps || [];
  const chain = [];
  molecules.forEach((m, i) => {
    if (i) chain.push(el("span", { class: "arrow", "aria-hidden": "true" }, "→"));
    chain.push(el("div", { class: "mol-box" }, molImg(m.smiles, m.name, "small"),
      el("div", {}, el("a", { href: compoundHref(null, m.smiles || m.name) }, m.name || m.smiles || m.key))));
  });
  const stepNodes = reactions.map((x, i) => {
    const recipe = (steps[i] && steps[i].recipe) || x.conditions || "";
    const from = molecules[i] || {}, to = molecules[i + 1] || {};
    return el("div", { class: "step" },
      el("h3", {}, `Step ${i + 1}: ${from.name || from.smiles || "?"} → ${to.name || to.smiles || "?"}`),
      img(reactionUrl(x.id), `scheme of step ${i + 1}`, "scheme"),
      el("p", {}, x.reaction_class ? `${x.reaction_class}. ` : "", recipe,
        x.yield_percent !== null && x.yield_percent !== undefined && !/yield/.test(recipe) ? `; ${fmt(x.yield_percent, 1)} % yield` : ""),
      el("p", { class: "meta" }, "Reaction ", el("code", {}, x.id), x.source ? ` · ${x.source}` : ""));
  });
  return el("article", { class: "card route", "data-kind": e.kind },
    cardHeader(e, `Route in ${r.length || reactions.length} step${(r.length || reactions.length) === 1 ? "" : "s"}`),
    el("div", { class: "route-chain" }, chain), stepNodes, why(e));
}
function toolCard(e) {
  const r = e.record || {};
  const args = Object.entries(r.arguments || {});
  const result = typeof r.result === "string" ? r.result : JSON.stringify(r.result, null, 2);
  return el("article", { class: "card", "data-kind": e.kind },
    cardHeader(e, el("span", {}, "Tool ", el("code", {}, r.tool || e.id))),
    el("div", { class: "body" },
      r.smiles ? molImg(r.smiles, r.compound) : "",
      el("div", { class: "facts" },
        el("div", { class: "role" }, "Arguments"),
        args.length ? el("dl", { class: "kv args" }, args.map(([k, v]) => [el("dt", {}, k), el("dd", {}, el("code", {}, typeof v === "string" ? v : JSON.stringify(v)))])) : unknown("none"),
        el("div", { class: "role" }, "Result", r.label ? ` (${r.label}${r.unit ? ", " + r.unit : ""})` : ""),
        el("pre", { class: "result" }, result ?? ""),
        el("p", { class: "meta" }, r.ok === false ? "the tool reported an error · " : "", r.elapsed_ms !== undefined ? `${fmt(r.elapsed_ms, 0)} ms` : ""))),
    why(e));
}
function highlighted(text, snippet, start, end) {
  text = String(text || "");
  let a = -1, b = -1;
  if (typeof start === "number" && typeof end === "number" && text.slice(start, end) === snippet) { a = start; b = end; }
  else if (snippet) { a = text.indexOf(snippet); b = a < 0 ? -1 : a + snippet.length; }
  if (a < 0) return [text];
  return [text.slice(0, a), el("mark", {}, text.slice(a, b)), text.slice(b)];
}
function chunkCard(e) {
  const r = e.record || {};
  const base = typeof r.start === "number" ? r.start : 0;
  const s = typeof r.snippet_start === "number" ? r.snippet_start - base : undefined;
  const t = typeof r.snippet_end === "number" ? r.snippet_end - base : undefined;
  const where = r.location || [r.section, r.page !== null && r.page !== undefined ? `page ${r.page}` : ""].filter(Boolean).join(", ");
  return el("article", { class: "card", "data-kind": e.kind },
    cardHeader(e, r.title || r.document_id || "Passage"),
    el("p", { class: "meta" }, where, r.document_id ? ` · document ${r.document_id}` : "",
      r.doi ? [" · DOI ", el("a", { href: `https://doi.org/${r.doi}`, rel: "noreferrer" }, r.doi)] : ""),
    el("blockquote", { class: "passage" }, highlighted(r.text, r.snippet, s, t)), why(e));
}
function genericCard(e) {
  return el("article", { class: "card", "data-kind": e.kind }, cardHeader(e, e.kind),
    el("pre", {}, JSON.stringify(e.record, null, 2)), why(e));
}
const CARDS = { compound: compoundCard, computed: compoundCard, reaction: reactionCard, graph_path: routeCard,
  tool_result: toolCard, chunk: chunkCard };

function renderAnswer(a) {
  const [cls, label, explanation] = statusOf(a);
  const value = a.value !== null && a.value !== undefined && typeof a.value !== "string" && !Array.isArray(a.value) ? a.value : null;
  const share = el("a", { href: location.pathname + location.search, class: "meta share" }, "link to this answer");
  const route = (a.trace && a.trace.route) || {};
  return el("div", { class: "answer-view" },
    el("section", { class: `status ${cls}`, "data-status": a.status },
      el("span", { class: `badge ${cls}` }, label), " ",
      el("p", { class: "answer-text" }, a.answer),
      value !== null ? el("p", {}, "Value: ", el("code", {}, JSON.stringify(value))) : "",
      el("p", { class: "why meta" }, explanation),
      (a.notes || []).length ? el("ul", { class: "notes meta" }, a.notes.map(n => el("li", {}, n))) : ""),
    a.evidence.length ? el("h2", {}, `Evidence (${a.evidence.length})`) : "",
    el("div", { class: "cards" }, a.evidence.map(e => (CARDS[e.kind] || genericCard)(e))),
    el("p", { class: "meta" }, `channel ${route.channel || a.method} (${route.why || "chosen"}) · method ${a.method} · reasoner ${a.reasoner} · `,
      `${fmt(((a.timings_ms || {}).total) || 0, 0)} ms · `, share));
}

async function ask(params) {
  const out = $("#out");
  state.started = performance.now();
  delete document.body.dataset.ready;
  fill(out, el("p", { class: "meta" }, "Asking…"));
  const body = { question: params.q, method: params.method || "auto", reasoner: params.reasoner || "extractive",
    k: Math.max(1, Math.min(50, parseInt(params.k || "5", 10) || 5)) };
  const reply = await api("/ask", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!reply.ok) {
    fill(out, el("section", { class: "status bad" }, el("span", { class: "badge bad" }, "Error"), " ", el("p", { class: "answer-text error" }, reply.detail)));
    await markReady(out, "error");
    return;
  }
  fill(out, renderAnswer(reply.data));
  await markReady(out, "answer");
}

// -- the compound page -----------------------------------------------------------------------
function reactionSummary(r) {
  const title = r.title || r.reaction_class || r.id;
  const parts = [];
  if (r.temperature_c !== null && r.temperature_c !== undefined) parts.push(`${fmt(r.temperature_c, 1)} °C`);
  if (r.time_h !== null && r.time_h !== undefined) parts.push(`${fmt(r.time_h)} h`);
  if (r.yield_percent !== null && r.yield_percent !== undefined) parts.push(`${fmt(r.yield_percent, 1)} % yield`);
  const solvents = (r.solvents || []).map(p => p.name || p.smiles);
  if (solvents.length) parts.push(`in ${solvents.join(", ")}`);
  return el("article", { class: "card", "data-kind": "reaction" },
    el("header", {}, el("h3", {}, title), el("span", { class: "meta" }, r.id)),
    img(reactionUrl(r.id, 110), `reaction scheme of ${title}`, "scheme small"),
    el("p", {}, people(r.reactants), " → ", people(r.products)),
    el("p", { class: "meta" }, parts.join(" · ") || "conditions not reported", r.source ? ` · ${r.source}` : ""));
}
async function showCompound(params) {
  const view = $("#compound-view");
  state.started = performance.now();
  delete document.body.dataset.ready;
  fill(view, el("p", { class: "meta" }, "Loading…"));
  const path = params.id !== undefined ? `/profile?id=${encodeURIComponent(params.id)}` : `/profile?q=${encodeURIComponent(params.q)}`;
  const reply = await api(path);
  if (!reply.ok) {
    fill(view, el("h1", {}, "Compound"), el("p", { class: "error" }, reply.detail));
    await markReady(view, "error");
    return;
  }
  const { compound: c, properties, reactions, similar, notes } = reply.data;
  document.title = `${c.name || c.smiles} · chemground`;
  const ids = [["KB id", c.in_knowledge_base === false ? unknown("not in the knowledge base (computed from the structure)") : c.id],
    ["Formula", c.formula], ["Molecular weight", c.molecular_weight ? `${fmt(c.molecular_weight, 3)} g/mol` : null],
    ["Exact mass", c.exact_mass ? fmt(c.exact_mass, 5) : null], ["SMILES", c.smiles ? el("code", {}, c.smiles) : null],
    ["InChI", c.inchi ? el("code", {}, c.inchi) : null], ["InChIKey", c.inchikey ? el("code", {}, c.inchikey) : null],
    ["CAS", c.cas], ["PubChem CID", c.pubchem_cid ? el("a", { href: `https://pubchem.ncbi.nlm.nih.gov/compound/${encodeURIComponent(c.pubchem_cid)}`, rel: "noreferrer" }, String(c.pubchem_cid)) : null],
    ["Source", c.source || c.resolved_by]].filter(([, v]) => v !== null && v !== undefined && v !== "");
  const roleSections = Object.entries(reactions || {}).map(([role, group]) => el("section", { class: "reaction-list", "data-role": role },
    el("h3", {}, `As ${role} (${group.count})`, group.count > group.reactions.length ? el("span", { class: "meta" }, ` showing ${group.reactions.length}`) : ""),
    group.reactions.map(reactionSummary)));
  fill(view, 
    el("h1", {}, c.name || c.smiles),
    el("div", { class: "compound-head" }, molImg(c.smiles, c.name, "big"),
      el("div", { class: "facts" }, el("dl", { class: "kv identifiers" }, ids.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
        el("p", {}, el("a", { href: `/?q=${encodeURIComponent(`What reactions involve ${c.smiles || c.name}?`)}` }, "Ask about its reactions")))),
    c.description ? el("p", {}, c.description) : "",
    el("h2", {}, "Names"),
    el("dl", { class: "kv" }, [["IUPAC name", c.iupac_name], ["Common name", c.common_name]].filter(([, v]) => v).map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    (c.synonyms || []).length ? el("div", { class: "chips synonyms" }, c.synonyms.slice(0, 40).map(s => el("span", { class: "chip" }, s))) : "",
    el("h2", {}, "Computed properties"),
    Object.keys(properties || {}).length ? el("table", { class: "props" }, Object.entries(properties).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, String(v))))) : unknown("no structure to compute from"),
    el("h2", {}, "Reactions"), roleSections.length ? roleSections : unknown("no reactions in the knowledge base"),
    el("h2", {}, "Similar compounds"),
    (notes || []).map(n => el("p", { class: "meta" }, n)),
    (similar || []).length ? el("div", { class: "grid similar" }, similar.map(s => el("div", { class: "card" },
      molImg(s.smiles, s.name, "small"), el("div", {}, el("a", { href: compoundHref(s.id, s.smiles) }, s.name || s.smiles)),
      el("div", { class: "meta" }, s.formula || "", ` · ${fmt(s.score, 2)}`)))) : unknown("none above the similarity floor"));
  await markReady(view, "compound");
}

// -- review mode: a ChemLit-QA CSV, reviewed in the browser ------------------------------------
function parseCsv(text) {
  const rows = [];
  let row = [], field = "", i = 0, quoted = false;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') { if (text[i + 1] === '"') { field += '"'; i++; } else quoted = false; }
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") { row.push(field); field = ""; }
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field); rows.push(row); row = []; field = "";
    } else field += ch;
  }
  if (quoted) throw new Error("the file ends inside a quoted field");
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows.filter(r => !(r.length === 1 && r[0] === ""));
}
function csvCell(value) {
  const text = String(value ?? "");
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
// A Python list literal as pandas writes it: ['a', "b's", [1, 2]] (strings, numbers, nested lists).
function parsePyList(text) {
  let i = 0;
  const s = String(text || "").trim();
  if (!s) return [];
  const fail = what => { throw new Error(`${what} at character ${i} of ${JSON.stringify(s.slice(0, 60))}`); };
  const space = () => { while (i < s.length && /\s/.test(s[i])) i++; };
  const ESC = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
  function value() {
    space();
    const ch = s[i];
    if (ch === "[" || ch === "(") {
      const close = ch === "[" ? "]" : ")";
      i++; const out = [];
      space();
      if (s[i] === close) { i++; return out; }
      for (;;) {
        out.push(value()); space();
        if (s[i] === ",") { i++; space(); if (s[i] === close) { i++; return out; } continue; }
        if (s[i] === close) { i++; return out; }
        fail("expected ',' or '" + close + "'");
      }
    }
    if (ch === "'" || ch === '"') {
      const quote = ch; i++; let out = "";
      while (i < s.length && s[i] !== quote) {
        if (s[i] === "\\") {
          const next = s[i + 1];
          if (next === "x") { out += String.fromCharCode(parseInt(s.slice(i + 2, i + 4), 16)); i += 4; continue; }
          if (next === "u") { out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16)); i += 6; continue; }
          out += ESC[next] ?? "\\" + next; i += 2; continue;
        }
        out += s[i++];
      }
      if (s[i] !== quote) fail("unterminated string");
      i++; return out;
    }
    const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(s.slice(i));
    if (m) { i += m[0].length; return Number(m[0]); }
    fail("unexpected character");
  }
  const parsed = value(); space();
  if (i < s.length) fail("trailing text");
  if (!Array.isArray(parsed)) fail("not a list");
  return parsed;
}
const review = { name: "", header: [], rows: [], items: [], at: 0, dirty: false };
const REVIEW_COLUMNS = ["Review_status", "Review_note", "Original_question", "Original_answer"];
function loadReview(name, text) {
  const rows = parseCsv(text);
  if (!rows.length) throw new Error("the file is empty");
  const header = rows[0];
  const col = n => header.indexOf(n);
  const questionCol = col("Updated_question") >= 0 ? col("Updated_question") : col("Question");
  const missing = ["Answer", "Context"].filter(n => col(n) < 0);
  if (questionCol < 0) missing.unshift("Question");
  if (missing.length) throw new Error(`not a ChemLit-QA CSV: missing columns ${missing.join(", ")} (has ${header.slice(0, 12).join(", ")})`);
  for (const extra of REVIEW_COLUMNS) if (col(extra) < 0) header.push(extra);
  const items = rows.slice(1).map((cells, n) => {
    while (cells.length < header.length) cells.push("");
    const get = c => (col(c) >= 0 ? cells[col(c)] : "");
    let context = [], spans = [], problem = "";
    try { context = parsePyList(get("Context")).map(String); } catch (error) { problem = `Context: ${error.message}`; }
    try { spans = parsePyList(get("A_start_end")); } catch (error) { problem = problem || `A_start_end: ${error.message}`; }
    return { cells, line: n + 2, id: get("ID") || String(n + 1), chunk: get("chunk"), context, spans, problem,
      question: cells[questionCol], answer: get("Answer"), type: get("Reasoning_type"), difficulty: get("Difficulty"),
      status: get("Review_status"), note: get("Review_note") };
  });
  Object.assign(review, { name, header, rows, items, at: 0, dirty: false, questionCol });
}
function reviewCounts() {
  const c = { accepted: 0, edited: 0, rejected: 0 };
  review.items.forEach(it => { if (c[it.status] !== undefined) c[it.status]++; });
  return c;
}
function chunkWithSpans(chunk, spans) {
  const ranges = spans.filter(s => Array.isArray(s) && s.length === 2 && s[0] >= 0 && s[1] <= chunk.length && s[0] < s[1])
    .sort((x, y) => x[0] - y[0]);
  const out = []; let at = 0;
  for (const [a, b] of ranges) {
    if (a < at) continue;
    out.push(chunk.slice(at, a), el("mark", {}, chunk.slice(a, b))); at = b;
  }
  out.push(chunk.slice(at));
  return out;
}
// One decision on one item: its status, note and (for an edit) the new question and answer,
// the originals kept in their own columns.
function applyDecision(it, d) {
  let status = d.status;
  const set = (name, value) => { it.cells[review.header.indexOf(name)] = value; };
  const get = name => it.cells[review.header.indexOf(name)];
  const edited = d.question !== it.question || d.answer !== it.answer;
  if (status === "accepted" && (edited || get("Original_question") || get("Original_answer"))) status = "edited";
  if (edited && status !== "rejected") {
    if (!it.cells[review.header.indexOf("Original_question")]) set("Original_question", it.question);
    if (!it.cells[review.header.indexOf("Original_answer")]) set("Original_answer", it.answer);
    it.cells[review.questionCol] = d.question; it.question = d.question;
    set("Answer", d.answer); it.answer = d.answer;
  }
  it.status = status; it.note = d.note || "";
  set("Review_status", status); set("Review_note", it.note);
}
// Decisions are also kept in this browser (localStorage), so a reload loses no work.
const reviewKey = () => `chemground-review:${review.name}:${review.size}:${(review.items[0] || {}).id}`;
function storeDecisions() {
  const saved = {};
  review.items.forEach((it, i) => { if (it.decision) saved[i] = it.decision; });
  try { localStorage.setItem(reviewKey(), JSON.stringify(saved)); } catch { /* storage full or off */ }
}
function restoreDecisions() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(reviewKey()) || "{}"); } catch { saved = {}; }
  let count = 0;
  for (const [i, d] of Object.entries(saved)) {
    const it = review.items[Number(i)];
    if (!it || !d || typeof d.status !== "string") continue;
    applyDecision(it, d); it.decision = d; count++;
  }
  return count;
}
function decide(status) {
  const it = review.items[review.at];
  const d = { status, question: $("#rv-question").value, answer: $("#rv-answer").value, note: $("#rv-note").value };
  applyDecision(it, d);
  it.decision = d;
  storeDecisions();
  review.dirty = true;
  if (review.at < review.items.length - 1) review.at++;
  renderReview();
}
function renderReview() {
  const box = $("#review-item");
  const counts = reviewCounts();
  const done = counts.accepted + counts.edited + counts.rejected;
  $("#review-summary").textContent = review.items.length
    ? `${review.name}: ${review.items.length} items; ${done} reviewed (${counts.accepted} accepted, ${counts.edited} edited, ${counts.rejected} rejected)` +
      (review.restored ? `; ${review.restored} decisions restored from this browser` : "")
    : "";
  $("#review-save").disabled = !review.items.length;
  if (!review.items.length) { fill(box); return; }
  const it = review.items[review.at];
  const go = n => { review.at = Math.max(0, Math.min(review.items.length - 1, n)); renderReview(); };
  fill(box, el("div", { class: "card review-item", "data-id": it.id },
    el("div", { class: "review-nav" },
      el("button", { type: "button", id: "rv-prev", onclick: () => go(review.at - 1), disabled: review.at === 0 }, "← Previous"),
      el("span", {}, `Item ${review.at + 1} of ${review.items.length} · ID ${it.id}`),
      el("button", { type: "button", id: "rv-next", onclick: () => go(review.at + 1), disabled: review.at === review.items.length - 1 }, "Next →"),
      el("span", { class: `review-state ${it.status || ""}`, id: "rv-state" }, it.status || "not reviewed")),
    el("p", { class: "meta" }, [it.type, it.difficulty].filter(Boolean).join(" · "), it.problem ? el("span", { class: "error" }, ` · ${it.problem}`) : ""),
    el("label", { for: "rv-question" }, "Question"), el("textarea", { id: "rv-question", rows: 2 }, it.question),
    el("label", { for: "rv-answer" }, "Answer"), el("textarea", { id: "rv-answer", rows: 3 }, it.answer),
    el("label", { for: "rv-note" }, "Reviewer note"), el("textarea", { id: "rv-note", rows: 1 }, it.note || ""),
    el("div", { class: "review-nav" },
      el("button", { type: "button", class: "primary", id: "rv-accept", onclick: () => decide("accepted") }, "Accept (edits kept)"),
      el("button", { type: "button", id: "rv-reject", onclick: () => decide("rejected") }, "Reject")),
    el("h3", {}, "Supporting context"),
    it.context.length ? el("ol", { class: "context" }, it.context.map(c => el("li", {}, c))) : unknown("no context sentences"),
    it.chunk ? [el("h3", {}, "Source passage (context highlighted)"), el("blockquote", { class: "chunk" }, chunkWithSpans(it.chunk, it.spans))] : ""));
}
function saveReview() {
  const lines = [review.header.map(csvCell).join(",")];
  for (const it of review.items) lines.push(it.cells.slice(0, review.header.length).map(csvCell).join(","));
  const blob = new Blob([lines.join("\r\n") + "\r\n"], { type: "text/csv" });
  const link = el("a", { download: `reviewed-${review.name.replace(/[^\w.-]+/g, "_") || "dataset.csv"}` });
  link.href = URL.createObjectURL(blob);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  review.dirty = false;
  document.body.dataset.saved = String(Date.now());
}
function setupReview() {
  $("#review-file").addEventListener("change", async ev => {
    const file = ev.target.files[0];
    if (!file) return;
    try {
      loadReview(file.name, await file.text());
      review.size = file.size;
      review.restored = restoreDecisions();
    }
    catch (error) {
      review.items = [];
      renderReview();
      fill($("#review-item"), el("p", { class: "error" }, `Could not read ${file.name}: ${error.message}`));
      return;
    }
    renderReview();
  });
  $("#review-save").addEventListener("click", saveReview);
  document.addEventListener("keydown", ev => {
    if ($("#review-view").hidden || !review.items.length || ev.target.tagName === "TEXTAREA" || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowRight") $("#rv-next").click();
    else if (ev.key === "ArrowLeft") $("#rv-prev").click();
    else if (ev.key === "a") decide("accepted");
    else if (ev.key === "r") decide("rejected");
  });
}

// -- options, routing and start-up -------------------------------------------------------------
function fillSelect(select, values, chosen) {
  fill(select, ...values.map(v => el("option", { value: v }, v)));
  select.value = values.includes(chosen) ? chosen : values[0];
}
async function loadOptions() {
  const reply = await api("/options");
  if (!reply.ok) return;
  state.options = reply.data;
  const params = new URLSearchParams(location.search);
  fillSelect($("#method"), reply.data.methods, params.get("method") || "auto");
  fillSelect($("#reasoner"), reply.data.reasoners, params.get("reasoner") || "extractive");
  fill($("#examples"), el("span", { class: "meta" }, "Try: "),
    reply.data.examples.map(q => el("a", { href: `/?q=${encodeURIComponent(q)}`, "data-example": "1" }, q)));
}
function show(view) {
  for (const id of ["ask-view", "compound-view", "review-view"]) $("#" + id).hidden = id !== view;
  document.querySelectorAll("nav a").forEach(a => a.classList.toggle("current",
    (view === "review-view" && a.dataset.nav === "review") || (view === "ask-view" && a.dataset.nav === "ask")));
}
function route() {
  const params = new URLSearchParams(location.search);
  const page = /^\/compound\/([0-9]+)$/.exec(location.pathname);
  if (page || params.get("compound")) {
    show("compound-view");
    return showCompound(page ? { id: page[1] } : { q: params.get("compound") });
  }
  if (location.pathname === "/review") { show("review-view"); document.body.dataset.ready = "review"; return; }
  show("ask-view");
  document.title = "chemground";
  const q = params.get("q");
  $("#q").value = q || "";
  if (params.get("k")) $("#k").value = params.get("k");
  if (q) {
    if (params.get("method")) $("#method").value = params.get("method");
    if (params.get("reasoner")) $("#reasoner").value = params.get("reasoner");
    return ask({ q, method: params.get("method") || "auto", reasoner: params.get("reasoner") || "extractive", k: params.get("k") || $("#k").value });
  }
  fill($("#out"));
  document.body.dataset.ready = "home";
}
function submit(ev) {
  ev.preventDefault();
  const q = $("#q").value.trim();
  if (!q) { $("#q").focus(); return; }
  const params = new URLSearchParams({ q });
  if ($("#method").value !== "auto") params.set("method", $("#method").value);
  if ($("#reasoner").value !== "extractive") params.set("reasoner", $("#reasoner").value);
  if ($("#k").value !== "5") params.set("k", $("#k").value);
  history.pushState(null, "", `/?${params}`);
  route();
}
function navigate(ev) {
  const link = ev.target.closest("a");
  if (!link || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  const href = link.getAttribute("href") || "";
  if (!href.startsWith("/") || href.startsWith("//") || href.startsWith("/docs") || link.hasAttribute("download")) return;
  ev.preventDefault();
  history.pushState(null, "", href);
  window.scrollTo(0, 0);
  route();
}
async function start() {
  const tokenBox = $("#token");
  tokenBox.value = state.token;
  if (state.token) $("#token-row").hidden = false;
  tokenBox.addEventListener("change", () => {
    state.token = tokenBox.value;
    sessionStorage.setItem("chemground-token", state.token);
    loadOptions();  // what this server offers, now that it may be asked
  });
  $("#form").addEventListener("submit", submit);
  document.addEventListener("click", navigate);
  document.addEventListener("keydown", ev => {
    if (ev.key === "/" && !/INPUT|TEXTAREA|SELECT/.test(ev.target.tagName)) { ev.preventDefault(); $("#q").focus(); }
  });
  window.addEventListener("popstate", route);
  setupReview();
  await Promise.all([loadOptions(), route()]);  // an answer in the URL need not wait for the options
}
start();
