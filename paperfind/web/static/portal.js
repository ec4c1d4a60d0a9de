// paperfind portal: search-as-you-type and BibTeX copy. Our own small script;
// every page works without it (the server renders the same cards).
"use strict";
(function () {
  const DEBOUNCE_MS = 180;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  }
  // the string `key` of `strings`, in its "_one" form where a count is 1 ("1 paper"), as the
  // server's Translator picks it
  function counted(strings, key, values) {
    const one = Object.values(values).some((v) => String(v) === "1");
    return format(one && strings[key + "_one"] ? strings[key + "_one"] : strings[key], values);
  }
  function number(n) { return Number(n).toLocaleString("en-US"); }
  // Highlights come escaped with <mark> tags: keep the marks, treat everything else as text.
  function appendMarked(parent, html) {
    const doc = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
    for (const node of doc.body.childNodes) {
      if (node.nodeName === "MARK") parent.appendChild(el("mark", {}, node.textContent));
      else parent.appendChild(document.createTextNode(node.textContent));
    }
  }
  const enc = encodeURIComponent;

  function authorLine(authors, cfg, named) {
    const box = el("div", { class: "card-authors" });
    const shown = authors.slice(0, cfg.authors_shown);
    shown.forEach((a, i) => {
      box.appendChild(a.id ? el("a", { class: "author", href: "/authors/" + enc(a.id) }, a.name)
        : el("span", { class: "author" }, a.name));
      if (i < shown.length - 1) box.appendChild(document.createTextNode(", "));
    });
    let last = shown.length - 1;  // the people a search names, after the first: "…, Yoshua Bengio"
    (named || []).filter((i) => i >= shown.length && i < authors.length).forEach((i) => {
      box.appendChild(document.createTextNode(i > last + 1 ? ", … " : ", "));
      box.appendChild(el("a", { class: "author named", href: "/authors/" + enc(authors[i].id) }, authors[i].name));
      last = i;
    });
    if (authors.length > last + 1 && authors.length > shown.length) {
      box.appendChild(document.createTextNode(" "));
      box.appendChild(el("span", { class: "etal" }, cfg.strings.et_al));
    }
    return box;
  }

  function paperCard(p, cfg) {
    const card = el("article", { class: "card", "data-key": p.key });
    const kicker = p.area || [p.track, p.status].filter(Boolean).join(" · ");
    if (kicker) {
      const k = el("div", { class: "card-kicker" });
      if (p.area) k.appendChild(el("a", { href: "/areas/" + enc(p.area) }, kicker));
      else k.textContent = kicker;
      card.appendChild(k);
    }
    const h = el("h3", { class: "card-title" });
    const link = el("a", { href: "/papers/" + enc(p.key).replace("%3A", ":") });
    if (p.highlights && p.highlights.title) appendMarked(link, p.highlights.title);
    else link.textContent = p.title;
    h.appendChild(link);
    card.appendChild(h);
    card.appendChild(authorLine(p.authors || [], cfg, p.named));
    const meta = el("div", { class: "card-meta" });
    meta.appendChild(el("a", { class: "venue", href: "/venues/" + enc(p.venue) + "?year=" + p.year },
      p.venue_name + " " + p.year));
    if (p.status && p.area) meta.appendChild(el("span", { class: "status status-" + p.status.toLowerCase().replace(/ /g, "-") }, p.status));
    for (const s of (p.institutions || []).slice(0, 4)) meta.appendChild(el("a", { class: "tag", href: "/institutions/" + enc(s) }, s));
    card.appendChild(meta);
    if (p.versions && p.versions.length) {  // the same work at another venue, listed once
      const also = el("div", { class: "card-versions muted" }, cfg.strings.also_in + ": ");
      p.versions.forEach((v, i) => {
        if (i) also.appendChild(document.createTextNode(", "));
        also.appendChild(el("a", { href: "/papers/" + enc(v.key).replace("%3A", ":") },
          v.venue_name + " " + v.year + (v.status ? " · " + v.status : "")));
      });
      card.appendChild(also);
    }
    if (p.also_known_as && p.also_known_as.length) {  // the names a search for puts it first
      card.appendChild(el("div", { class: "card-aka muted" },
        cfg.strings.also_known_as + ": " + p.also_known_as.join(", ")));
    }
    const snippet = p.highlights ? p.highlights.abstract : "";
    if (snippet) {
      const para = el("p", { class: "card-snippet" });
      appendMarked(para, snippet);
      card.appendChild(para);
    }
    return card;
  }

  function authorCard(a, cfg) {
    const card = el("a", { class: "author-card", href: "/authors/" + enc(a.id) });
    card.appendChild(el("span", { class: "avatar" }, a.name.slice(0, 1)));
    const body = el("span", { class: "author-card-body" });
    body.appendChild(el("strong", {}, a.name));
    let line = counted(cfg.strings, "papers_count", { count: number(a.paper_count) });
    if (a.years && a.years[0]) line += " · " + a.years[0] + "–" + a.years[1];
    body.appendChild(el("span", { class: "muted" }, line));
    const tags = el("span", { class: "tags" });
    for (const s of (a.institutions || []).slice(0, 3)) tags.appendChild(el("span", { class: "tag" }, s));
    body.appendChild(tags);
    card.appendChild(body);
    return card;
  }

  function setupSearch() {
    const form = document.getElementById("search-form");
    const input = document.getElementById("q");
    const results = document.getElementById("results");
    const facets = document.getElementById("facets");
    const cfgNode = document.getElementById("client-strings");
    if (!form || !input || !results || !cfgNode) return;
    const cfg = JSON.parse(cfgNode.textContent);
    let timer = null;
    let latest = 0;
    let controller = null;

    function queryString() {
      const params = new URLSearchParams(new FormData(form));
      params.delete("page");
      return params.toString();
    }

    function render(data, qs) {
      results.replaceChildren();
      const head = el("div", { class: "results-head" });
      // an engine that counted over its top candidates says so, as the server's page does
      const approximate = data.counts === "approximate";
      const count = el("span", { class: "results-count", id: "results-count" },
        counted(cfg.strings, "results_count", { total: (approximate ? "≈ " : "") + number(data.total) }));
      if (approximate) {
        count.appendChild(document.createTextNode(" "));
        count.appendChild(el("span", { class: "muted", title: cfg.strings.counts_approximate },
          "(" + cfg.strings.counts_approximate + ")"));
      }
      count.appendChild(document.createTextNode(" · " + format(cfg.strings.results_took, { ms: data.took_ms })));
      head.appendChild(count);
      const tools = el("span", { class: "results-tools" });
      tools.appendChild(el("a", { class: "export", href: "/api/search/export?" + qs + "&format=bibtex" }, "BibTeX"));
      tools.appendChild(el("a", { class: "export", href: "/api/search/export?" + qs + "&format=csv" }, "CSV"));
      head.appendChild(tools);
      results.appendChild(head);
      const understood = understoodLine(data.understood, qs);
      if (understood) results.appendChild(understood);
      if (data.suggestion) {
        const p = el("p", { class: "suggestion", id: "suggestion" }, cfg.strings.did_you_mean + " ");
        p.appendChild(el("a", { href: "/?q=" + enc(data.suggestion) }, data.suggestion));
        results.appendChild(p);
      }
      if (data.authors && data.authors.length) {
        const box = el("div", { class: "author-cards", id: "author-cards" });
        for (const a of data.authors) box.appendChild(authorCard(a, cfg));
        results.appendChild(box);
      }
      if (data.total) results.appendChild(trendSlot(qs));
      const cards = el("div", { id: "cards" });
      for (const p of data.results) cards.appendChild(paperCard(p, cfg));
      results.appendChild(cards);
      if (!data.results.length) results.appendChild(el("p", { class: "empty" }, cfg.strings.no_results));
      if (data.paging && data.paging.pages > 1) {
        const nav = el("nav", { class: "pager" });
        nav.appendChild(el("a", { class: "btn", rel: "next", href: "/?" + qs + "&page=2" }, "→"));
        results.appendChild(nav);
      }
      renderFacets(data, qs);
      updateFilterBar(qs);
    }

    // The institutions the query named, as the server's page draws them (macros.html,
    // understood_line): each chip searches the query without it, the other filters kept.
    function withQuery(qs, q) {
      const params = new URLSearchParams(qs);
      if (q) params.set("q", q); else params.delete("q");
      return "/?" + params.toString();
    }

    function understoodLine(u, qs) {
      if (!u || !(u.institutions.length || u.alternative)) return null;
      const label = (i) => (cfg.lang === "zh" && i.name_zh ? i.name_zh : i.name);
      const p = el("p", { class: "understood", id: "understood" });
      if (u.institutions.length) {
        p.appendChild(el("span", { class: "muted" }, cfg.strings.understood_as));
        for (const i of u.institutions) {
          const chip = el("a", { class: "chip understood-chip", href: withQuery(qs, u.without), "data-slug": i.slug,
            title: cfg.strings.remove_institution, "aria-label": cfg.strings.remove_institution + ": " + label(i) });
          chip.appendChild(el("span", {}, label(i)));
          chip.appendChild(el("span", { class: "chip-x", "aria-hidden": "true" }, "×"));
          p.appendChild(chip);
        }
        if (u.text) p.appendChild(el("span", { class: "understood-text" }, "· " + u.text));
      }
      if (u.alternative) {
        const first = u.alternative.institutions[0];
        const text = u.alternative.reading === "words"
          ? format(cfg.strings.reading_as_words, { written: first.written })
          : format(cfg.strings.reading_as_institution, { name: label(first) });
        p.appendChild(el("a", { class: "understood-alt", href: withQuery(qs, u.alternative.q) }, text));
      }
      return p;
    }

    // The narrow-screen filter bar: shown once there are facets to fold, and each chip's link
    // follows the query typed since the page loaded (it drops only its own filter).
    function updateFilterBar(qs) {
      const bar = document.getElementById("filter-bar");
      if (!bar) return;
      const chips = bar.querySelectorAll("a.chip");
      for (const chip of chips) {
        const kept = new URLSearchParams();
        for (const [k, v] of new URLSearchParams(qs)) {
          if (!(k === chip.dataset.param && v === chip.dataset.value)) kept.append(k, v);
        }
        chip.setAttribute("href", "/?" + kept.toString());
      }
      bar.hidden = !(facets && facets.children.length) && !chips.length;
    }

    // The trend chart is drawn by the server (one renderer for every chart): fetch it for
    // the query just drawn, and drop it if a newer keystroke has redrawn the list since.
    function trendSlot(qs) {
      const slot = el("div", { class: "trend-slot" });
      const ticket = latest;
      fetch("/trend?" + qs, { headers: { Accept: "text/html" } })
        .then((response) => (response.ok ? response.text() : ""))
        .then((html) => { if (ticket === latest && slot.isConnected) slot.innerHTML = html; })
        .catch((err) => console.warn("trend failed", err));
      return slot;
    }

    function renderFacets(data, qs) {
      if (!facets) return;
      facets.replaceChildren();
      for (const name of ["venue", "year", "status", "area", "institution"]) {
        const values = (data.facets || {})[name] || [];
        if (!values.length) continue;
        const section = el("section", { class: "facet" });
        section.appendChild(el("h4", {}, facets.dataset["label" + name[0].toUpperCase() + name.slice(1)] || name));
        const list = el("ul");
        for (const f of values.slice(0, 10)) {
          const li = el("li");
          const a = el("a", { class: "facet-value", href: "/?" + qs + "&" + f.param + "=" + enc(f.value) });
          a.appendChild(el("span", {}, f.label));
          a.appendChild(el("span", { class: "count" }, f.count));
          li.appendChild(a);
          list.appendChild(li);
        }
        section.appendChild(list);
        facets.appendChild(section);
      }
    }

    async function run() {
      const ticket = ++latest;
      const qs = queryString();
      if (!input.value.trim()) return;
      if (controller) controller.abort();
      controller = new AbortController();
      results.classList.add("searching");
      try {
        const response = await fetch("/api/search?" + qs, { signal: controller.signal, headers: { Accept: "application/json" } });
        const data = await response.json();
        if (ticket !== latest) return; // a newer keystroke already asked again: drop this one
        if (!response.ok) return;
        render(data, qs);
        history.replaceState(null, "", "/?" + qs);
      } catch (err) {
        if (err.name !== "AbortError") console.warn("search failed", err);
      } finally {
        if (ticket === latest) results.classList.remove("searching");
      }
    }

    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(run, DEBOUNCE_MS);
    });
  }

  function setupCopy() {
    const button = document.getElementById("copy-bibtex");
    const pre = document.getElementById("bibtex");
    if (!button || !pre) return;
    const label = button.textContent;
    button.addEventListener("click", async () => {
      const text = pre.textContent;
      try {
        await navigator.clipboard.writeText(text);
      } catch (err) {
        const range = document.createRange();
        range.selectNodeContents(pre);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        document.execCommand("copy");
      }
      button.textContent = button.dataset.copied;
      button.classList.add("done");
      setTimeout(() => { button.textContent = label; button.classList.remove("done"); }, 2000);
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    setupSearch();
    setupCopy();
  });
})();
