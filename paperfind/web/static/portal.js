// paperfind portal: search-as-you-type and BibTeX copy. Our own small script;
// every page works without it (the server renders every card, and this script shows its HTML).
"use strict";
(function () {
  const DEBOUNCE_MS = 180;

  // Search as you type asks the server for the page the address would show and puts its
  // results in place of these: the cards, sort tabs, filter chips, "Clear filters", pager and
  // trend are the server's own (one renderer, both languages), and the address follows the box.
  function setupSearch() {
    const form = document.getElementById("search-form");
    const input = document.getElementById("q");
    if (!form || !input || !document.getElementById("results-layout")) return;
    const lang = document.body.className.replace(/^.*lang-(\w+).*$/, "$1");
    let timer = null;
    let latest = 0;
    let controller = null;

    // the form's query (the filters and sort it carries, page 1); no q when the box is empty,
    // which is the page without a query: the filtered list, or the empty search page
    function address() {
      const params = new URLSearchParams(new FormData(form));
      params.delete("page");
      if (!input.value.trim()) params.delete("q");
      const qs = params.toString();
      return qs ? "/?" + qs : "/";
    }

    function show(html, url) {
      const doc = new DOMParser().parseFromString(html, "text/html");
      const fresh = doc.getElementById("results-layout");
      const layout = document.getElementById("results-layout");
      if (!fresh || !layout) return;
      const opened = layout.querySelector("#filter-toggle[open]");  // a phone's open filters stay open
      if (opened) { const toggle = fresh.querySelector("#filter-toggle"); if (toggle) toggle.open = true; }
      layout.replaceWith(document.adoptNode(fresh));
      document.title = doc.title;
      // the head's feed link names the list on screen, so subscribing from the address bar
      // follows the typed query (the new page's own link, or none where it has none)
      const feed = 'link[rel="alternate"][type="application/atom+xml"]';
      const oldFeed = document.head.querySelector(feed);
      const newFeed = doc.head.querySelector(feed);
      if (oldFeed) oldFeed.remove();
      if (newFeed) document.head.appendChild(document.adoptNode(newFeed));
      history.replaceState(null, "", url);
    }

    async function run() {
      const ticket = ++latest;
      const url = address();
      if (controller) controller.abort();
      controller = new AbortController();
      const layout = document.getElementById("results-layout");
      layout.classList.add("searching");
      try {
        const response = await fetch(url + (url.includes("?") ? "&" : "?") + "lang=" + lang,
          { signal: controller.signal, headers: { Accept: "text/html" } });
        const html = await response.text();
        if (ticket !== latest) return; // a newer keystroke already asked again: drop this one
        if (!response.ok) return;
        show(html, url);
      } catch (err) {
        if (err.name !== "AbortError") console.warn("search failed", err);
      } finally {
        const now = document.getElementById("results-layout");
        if (ticket === latest && now) now.classList.remove("searching");
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

  // "Who works on this?" under a paper: computed after the page (it reads the whole corpus),
  // from the /experts page's own list, so both languages and the cards are the server's.
  function setupExperts() {
    const slot = document.querySelector("[data-experts-src]");
    if (!slot) return;
    fetch(slot.dataset.expertsSrc, {headers: {"Accept": "text/html"}})
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        const list = new DOMParser().parseFromString(html, "text/html").getElementById("experts-list");
        if (list) slot.replaceChildren(...Array.from(list.childNodes).map((n) => document.adoptNode(n)));
      })
      .catch(() => { slot.hidden = true; });
  }

  document.addEventListener("DOMContentLoaded", () => {
    setupSearch();
    setupCopy();
    setupExperts();
  });
})();
