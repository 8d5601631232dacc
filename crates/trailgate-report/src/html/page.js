// trailgate's HTML report: draws the page from the JSON in the element #data.
//
// Safety: every string of the data comes from a suite or a trace, which an agent may have
// filled with markup. It is only ever inserted as text (text nodes, `textContent`,
// attribute values set with `setAttribute`); nothing here writes HTML from strings.
// Scale: the run list shows one page of runs at a time, so a report of 100,000 runs draws
// the same number of rows as one of 50. The filters live in the URL's fragment
// (`#verdict=failed&tool=shell`), which can be shared and which the browser test sets.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const PAGE_SIZE = 50;
  const BINS = ["0–9", "10–19", "20–29", "30–39", "40–49", "50–59", "60–69", "70–79", "80–89", "90–99", "100"];
  const TICKS = ["0", "", "", "", "", "50", "", "", "", "", "100"];
  const app = document.getElementById("app");

  // An element with attributes and children; strings become text nodes.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    for (const child of children) node.append(child);
    return node;
  }

  // A verdict in words, coloured only as a second cue.
  function verdict(passed) {
    return el("span", { class: "verdict " + (passed ? "pass" : "fail") }, passed ? "PASS" : "FAIL");
  }

  // A test's verdict with its xfail mark counted: XFAIL (expected, no failure) or XPASS (a
  // failure: the mark should go); otherwise its gates' verdict.
  function testVerdict(test) {
    if (test.verdict === "xfail") return el("span", { class: "verdict xfail", title: "xfail: " + test.xfail }, "XFAIL");
    if (test.verdict === "xpass") return el("span", { class: "verdict fail", title: "it passes now; remove its xfail mark" }, "XPASS");
    return verdict(test.passed);
  }

  // A test's stability over its runs (two or more): stable, failing or flaky.
  function stabilityBadge(test) {
    if (!test.stability) return null;
    return el("span", { class: "stability " + test.stability, title: test.passed_runs + " of " + test.run_count + " runs passed every gate on their own" }, test.stability);
  }

  // A gate's verdict: a skipped gate (on a baseline that was not given) has none.
  function gateVerdict(gate) {
    return gate.passed === null ? el("span", { class: "verdict skip" }, "SKIPPED") : verdict(gate.passed);
  }

  function gateText(gate) {
    const value = gate.baseline ? gate.baseline.expression : String(gate.value);
    return gate.target + " " + gate.op + " " + value;
  }

  function gateNote(gate) {
    const notes = [];
    if (gate.baseline && gate.baseline.base !== null) notes.push("baseline value " + gate.baseline.base + ", compared with " + gate.value);
    if (gate.skipped) notes.push("skipped: " + gate.skipped);
    if (gate.note) notes.push(gate.note);
    return notes.join("; ");
  }

  function plural(count, one, many) {
    return count + " " + (count === 1 ? one : many);
  }

  function table(head, rows, numeric) {
    return el("table", {},
      el("thead", {}, el("tr", {}, head.map((h, i) => el("th", { class: numeric && numeric[i] ? "num" : null, scope: "col" }, h)))),
      el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell, i) => el("td", { class: numeric && numeric[i] ? "num" : null }, cell))))));
  }

  // The test's metrics beside those of the test of the same name in the report given to
  // `check --baseline`: each change in points and in words, so it reads without colour.
  function baselineComparison(test) {
    if (test.baseline === null) {
      return el("p", { class: "muted baseline" }, "No baseline was given (trailgate check --baseline BASE.json).");
    }
    const base = test.baseline.metrics;
    if (base === null) {
      return el("p", { class: "baseline" }, "The baseline has no test of this name: nothing to compare with.");
    }
    const now = Object.fromEntries(test.metrics);
    const names = [...new Set([...Object.keys(base), ...Object.keys(now)])].sort();
    const rows = names.map((name) => {
      const [b, n] = [base[name], now[name]];
      let change = "-";
      if (b !== undefined && n !== undefined) {
        change = n === b ? "same" : (n > b ? "up " + (n - b) : "down " + (b - n));
      } else if (b === undefined) {
        change = "new";
      } else {
        change = "gone";
      }
      return [name, b === undefined ? "-" : String(b), n === undefined ? "-" : String(n), change];
    });
    // `errors.rate` and `usage.*` are better lower, every other metric higher: the rule of
    // `diff` and `trend` (trailgate-report's direction.rs, docs/baselines.md#which-way-is-better).
    const lower = (name) => name === "errors.rate" || name.startsWith("usage.");
    const worse = rows.filter((row) => row[3].startsWith(lower(row[0]) ? "up" : "down")).length;
    return el("div", { class: "baseline" },
      el("p", {}, worse === 0 ? "No metric worsened against the baseline." : plural(worse, "metric", "metrics") + " worsened against the baseline."),
      table(["Metric", "Baseline", "Now", "Change"], rows, [false, true, true, false]));
  }

  // A bar chart of `counts` under `labels`, as inline SVG, with its numbers in words for
  // screen readers and in each bar's tooltip.
  // `ticks` are the labels written under the axis, by index (all of them by default);
  // `scale` is the count of a full-height bar: the largest count unless given.
  function barChart(title, labels, counts, unit, ticks, scale) {
    const width = 310, height = 130, left = 40, bottom = 22, top = 10;
    const max = scale || Math.max(1, ...counts);
    const step = (width - left) / counts.length;
    const words = labels.map((label, i) => label + ": " + counts[i] + unit).join(", ");
    const chart = svg("svg", { class: "chart", width, height, viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": title + ": " + words });
    chart.append(svg("line", { x1: left, y1: height - bottom, x2: width, y2: height - bottom }));
    chart.append(svg("text", { x: left - 4, y: top + 8, "text-anchor": "end" }, document.createTextNode(String(max))));
    chart.append(svg("text", { x: left - 4, y: height - bottom, "text-anchor": "end" }, document.createTextNode("0")));
    counts.forEach((count, i) => {
      const h = Math.round((height - bottom - top) * count / max);
      const bar = svg("rect", { class: "bar", x: (left + i * step + 1).toFixed(1), y: height - bottom - h, width: Math.max(1, step - 2).toFixed(1), height: h, "data-count": count });
      bar.append(svg("title", {}, document.createTextNode(labels[i] + ": " + count + unit)));
      chart.append(bar);
      const tick = ticks ? ticks[i] : labels[i];
      if (tick) {
        chart.append(svg("text", { x: (left + (i + 0.5) * step).toFixed(1), y: height - 8, "text-anchor": "middle" }, document.createTextNode(tick)));
      }
    });
    return el("figure", {}, chart, el("figcaption", {}, title));
  }

  // The histogram of a metric's per-run values, in 11 bins: 0–9, ..., 90–99 and 100.
  function histogram(test, index) {
    const counts = new Array(BINS.length).fill(0);
    for (const run of test.runs) {
      const value = run.m[index];
      if (typeof value === "number") counts[Math.min(10, Math.floor(value / 10))] += 1;
    }
    const figure = barChart(test.run_metrics[index] + " per run (" + plural(test.runs.length, "run", "runs") + ")", BINS, counts, " runs", TICKS);
    figure.setAttribute("data-metric", test.run_metrics[index]);
    return figure;
  }

  // The charts of the metrics per run. A chart shows how the runs spread, so a test of one
  // run has none (the metrics table gives its values), and a metric on which every run
  // agrees is said in words rather than drawn as one bar (docs/reports.md#html-report).
  function metricsPerRun(test) {
    if (test.runs.length < 2 || test.run_metrics.length === 0) return [];
    const charts = [];
    const same = [];
    test.run_metrics.forEach((name, i) => {
      const first = test.runs[0].m[i];
      if (test.runs.every((run) => run.m[i] === first)) same.push(name + " " + first);
      else charts.push(histogram(test, i));
    });
    return [
      el("h3", {}, "Each metric per run"),
      charts.length ? el("div", { class: "charts" }, charts) : null,
      same.length ? el("p", { class: "same-in-every-run" }, "The same in every run: " + same.join(", ") + ".") : null,
    ];
  }

  // A fragment of the run explorer's filters (the keys of readState).
  function fragment(params) {
    return "#" + new URLSearchParams(params).toString();
  }

  // Why a failed test failed, shown without a click: each failed gate as the text report
  // writes it, the counts behind it, the findings of the listed runs behind it (each run a
  // link that opens it in the run explorer) and a link that filters the explorer on every
  // run behind the gate. The words come from the data, written by the same code as the
  // text report's; a run is named by its number, its source taken from its own entry.
  function whyItFailed(test, t) {
    const testKey = String(t + 1);
    const block = el("div", { class: "why", "data-why": testKey }, el("h3", {}, "Why it failed"));
    for (const failure of test.failures) {
      const part = el("div", { class: "failure", "data-grader": failure.key });
      for (const [g, line] of failure.gates) {
        // `line` holds what a gate on the baseline resolved to; `note`, an inconclusive
        // gate's remark.
        const gate = test.gates[g];
        part.append(el("p", { class: "failed-gate" }, verdict(false), " ", el("code", {}, line), " (actual " + gate.actual + ")", gate.note ? "; " + gate.note : null));
      }
      if (failure.note) part.append(el("p", {}, failure.title ? failure.title + ": " : "", failure.note));
      if (failure.key !== null && failure.runs.length > 0) {
        const behind = test.runs.filter((run) => run.x.includes(failure.key)).length;
        part.append(el("ul", { class: "behind" }, failure.runs.map(([n, facts]) => {
          const run = test.runs[n - 1];
          const link = el("a", { href: fragment({ test: testKey, finding: failure.key, run: testKey + "." + n }) }, "run " + n);
          return el("li", {}, link, " ", el("code", {}, run ? source(test, run) : ""), ": " + facts.join("; "));
        })));
        // The text report lists at most 20 runs of a test: the link shows every one.
        const words = behind > failure.runs.length
          ? "Show all " + behind + " runs with findings of " + failure.key + " in the run list (the first " + failure.runs.length + " are above)"
          : "Show " + (behind === 1 ? "this run" : "these " + behind + " runs") + " in the run list";
        part.append(el("p", {}, el("a", { class: "runs-behind", href: fragment({ test: testKey, finding: failure.key }) }, words)));
      } else if (test.passed_runs < test.run_count) {
        const failed = test.run_count - test.passed_runs;
        part.append(el("p", {}, el("a", { class: "runs-behind", href: fragment({ test: testKey, verdict: "failed" }) },
          failed === 1 ? "Show the run that failed on its own in the run list" : "Show the " + failed + " runs that failed on their own in the run list")));
      } else {
        part.append(el("p", { class: "muted" }, "No run failed on its own: this gate judges the runs together."));
      }
      block.append(part);
    }
    return block;
  }

  function header() {
    const s = DATA.summary;
    const parts = [
      el("h1", {}, "trailgate report ", verdict(DATA.passed)),
      el("p", {}, "Suite ", el("code", {}, DATA.suite), ": ", plural(s.tests, "test", "tests"), ", ", s.passed + " passed, " + s.failed + " failed" + (s.xfailed === undefined ? "" : ", " + s.xfailed + " xfailed, " + s.xpassed + " xpassed") + "."),
    ];
    for (const note of DATA.notes) parts.push(el("p", { class: "muted" }, "Note: " + note));
    parts.push(table(["Verdict", "Test", "Runs", "Passed on their own", "Failed gates"],
      DATA.tests.map((test, i) => [
        testVerdict(test),
        el("a", { href: "#test-" + (i + 1) }, test.name),
        String(test.run_count) + (test.stability ? " (" + test.stability + ")" : ""),
        String(test.passed_runs),
        test.gates.filter((g) => g.passed === false).map((g) => gateText(g) + " (actual " + g.actual + ")").join("; ") || "none",
      ]), [false, false, true, true, false]));
    return el("header", {}, parts);
  }

  function testSection(test, index) {
    const section = el("section", { class: "test", id: "test-" + (index + 1), "data-passed": test.passed });
    section.append(el("h2", {}, testVerdict(test), " ", test.name, stabilityBadge(test), test.agent ? el("span", { class: "muted" }, " (agent " + test.agent + ")") : null));
    if (test.verdict === "xfail") section.append(el("p", { class: "xfail-reason" }, "Expected to fail: " + test.xfail));
    if (test.verdict === "xpass") section.append(el("p", { class: "xfail-reason" }, "XPASS: it passes now; remove its xfail mark (xfail: " + test.xfail + ")"));
    section.append(el("p", {}, plural(test.run_count, "run", "runs") + "; " + test.passed_runs + " passed every gate on their own."));
    if (test.failures.length > 0) section.append(whyItFailed(test, index));
    section.append(el("h3", {}, "Gates"));
    section.append(table(["Verdict", "Gate", "Actual", "Note"], test.gates.map((g) => [
      gateVerdict(g), el("code", {}, gateText(g)), String(g.actual), gateNote(g),
    ]), [false, false, true, false]));
    section.append(el("h3", {}, "Metrics"));
    section.append(table(["Metric", "Value"], test.metrics.map(([target, value]) => [el("code", {}, target), String(value)]), [false, true]));
    section.append(...metricsPerRun(test).filter(Boolean));
    if (test.classes.length > 0) {
      section.append(el("h3", {}, "Classes"));
      section.append(table(["Class", "Runs satisfied", "Runs missed"], test.classes.map(([name, satisfied, missed]) => [name, String(satisfied), String(missed)]), [false, true, true]));
    }
    // The class columns count against the equal-function sets: a test without them has
    // none, and its tools show only their calls and errors.
    if (test.tools.length > 0 && test.classes.length > 0) {
      section.append(el("h3", {}, "Tools"));
      section.append(table(["Tool", "Called", "Satisfied a class", "Unexpected", "Errors"],
        test.tools.map(([tool, ...counts]) => [el("code", {}, tool), ...counts.map(String)]), [false, true, true, true, true]));
    } else if (test.tools.length > 0) {
      section.append(el("h3", {}, "Tools"));
      section.append(table(["Tool", "Called", "Errors"],
        test.tools.map(([tool, called, , , errors]) => [el("code", {}, tool), String(called), String(errors)]), [false, true, true]));
    }
    // The per-agent table, only when a call has an agent; names are text nodes, inert.
    if (test.agents && test.agents.length > 0) {
      section.append(el("h3", {}, "Agents"));
      section.append(table(["Agent", "Calls", "Errors", "Tools"], test.agents.map((row) => [
        row.agent, String(row.calls), String(row.errors), el("code", {}, row.tools.join(", ")),
      ]), [false, true, true, false]));
    }
    const reliability = test.parts.reliability;
    if (reliability) {
      section.append(el("h3", {}, "Reliability"));
      section.append(el("p", {}, "Pass rate " + reliability.pass_rate + " (" + reliability.confidence + " % interval " + reliability.lower + " to " + reliability.upper +
        "), pass@" + reliability.k + " " + reliability.pass_at_k + ", pass^" + reliability.k + " " + reliability.pass_hat_k + "."));
      const decay = reliability.pass_hat_k_decay;
      // One run gives one point, pass^1, which the line above gives: a chart of one bar says
      // nothing more.
      if (decay.length > 1) {
        section.append(barChart("pass^k for k = 1 to " + decay.length, decay.map((_, i) => String(i + 1)), decay, "", null, 100));
      }
    }
    section.append(el("h3", {}, "Baseline comparison"));
    section.append(baselineComparison(test));
    return section;
  }

  // The filters, read from and written to the URL's fragment.
  function readState() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    return {
      test: params.get("test") || "",
      verdict: params.get("verdict") || "",
      finding: params.get("finding") || "",
      tool: params.get("tool") || "",
      page: Math.max(1, parseInt(params.get("page") || "1", 10) || 1),
      run: params.get("run") || "",
    };
  }

  function writeState(state) {
    const params = new URLSearchParams();
    for (const key of ["test", "verdict", "finding", "tool", "run"]) if (state[key]) params.set(key, state[key]);
    if (state.page > 1) params.set("page", String(state.page));
    const hash = params.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    drawRuns();
  }

  function matches(test, run, state) {
    if (state.verdict === "passed" && !run.p) return false;
    if (state.verdict === "failed" && run.p) return false;
    if (state.finding === "none" && run.x.length > 0) return false;
    if (state.finding === "any" && run.x.length === 0) return false;
    if (state.finding && state.finding !== "any" && state.finding !== "none" && !run.x.includes(state.finding)) return false;
    if (state.tool) {
      const needle = state.tool.toLowerCase();
      if (!run.c.some((call) => call[0].toLowerCase().includes(needle))) return false;
    }
    return true;
  }

  function source(test, run) {
    return test.files[run.f] + (run.l === null ? "" : ":" + run.l);
  }

  const explorer = el("section", { id: "runs" });
  let state = readState();

  function explorerControls() {
    const findings = new Set();
    for (const test of DATA.tests) for (const run of test.runs) for (const key of run.x) findings.add(key);
    const option = (value, label, current) => el("option", { value, selected: value === current ? "" : null }, label);
    const testSelect = el("select", { id: "filter-test" }, option("", "every test", state.test),
      DATA.tests.map((test, i) => option(String(i + 1), (i + 1) + ". " + test.name, state.test)));
    const verdictSelect = el("select", { id: "filter-verdict" }, option("", "any verdict", state.verdict),
      option("failed", "failed (FAIL)", state.verdict), option("passed", "passed (PASS)", state.verdict));
    const findingSelect = el("select", { id: "filter-finding" }, option("", "with or without findings", state.finding),
      option("any", "with any finding", state.finding), option("none", "without findings", state.finding),
      [...findings].sort().map((key) => option(key, "findings of " + key, state.finding)));
    const toolInput = el("input", { id: "filter-tool", type: "search", value: state.tool, placeholder: "part of a tool's name" });
    const change = () => {
      state = Object.assign(state, { test: testSelect.value, verdict: verdictSelect.value, finding: findingSelect.value, tool: toolInput.value, page: 1, run: "" });
      writeState(state);
    };
    for (const select of [testSelect, verdictSelect, findingSelect]) select.addEventListener("change", change);
    let timer = null;
    toolInput.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(change, 200); });
    return el("div", { class: "filters", role: "search" },
      el("label", { for: "filter-test" }, "Test", testSelect),
      el("label", { for: "filter-verdict" }, "Verdict", verdictSelect),
      el("label", { for: "filter-finding" }, "Finding", findingSelect),
      el("label", { for: "filter-tool" }, "Tool called", toolInput));
  }

  const listArea = el("div", { id: "run-list" });
  // The control to give the focus back to once the list is drawn again, as the list's
  // buttons are drawn anew: a CSS selector within the list, or null.
  let refocus = null;

  function drawRuns() {
    state = readState();
    // A fragment changed by hand or by a link moves the controls too.
    for (const [id, value] of [["filter-test", state.test], ["filter-verdict", state.verdict], ["filter-finding", state.finding], ["filter-tool", state.tool]]) {
      const control = document.getElementById(id);
      if (control && control.value !== value) control.value = value;
    }
    const found = [];
    DATA.tests.forEach((test, t) => {
      if (state.test && state.test !== String(t + 1)) return;
      for (const run of test.runs) if (matches(test, run, state)) found.push([t, run]);
    });
    const pages = Math.max(1, Math.ceil(found.length / PAGE_SIZE));
    const page = Math.min(state.page, pages);
    const shown = found.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const go = (to, which) => { state.page = to; refocus = "[data-go=" + which + "]"; writeState(state); };
    const pager = el("div", { class: "pager" },
      el("button", { type: "button", disabled: page <= 1 ? "" : null, "data-go": "previous" }, "Previous page"),
      el("span", { id: "run-count" }, found.length === 0 ? "no run matches" :
        "runs " + ((page - 1) * PAGE_SIZE + 1) + "–" + ((page - 1) * PAGE_SIZE + shown.length) + " of " + found.length + " matching (page " + page + " of " + pages + ")"),
      el("button", { type: "button", disabled: page >= pages ? "" : null, "data-go": "next" }, "Next page"));
    pager.querySelector("[data-go=previous]").addEventListener("click", () => go(page - 1, "previous"));
    pager.querySelector("[data-go=next]").addEventListener("click", () => go(page + 1, "next"));
    const rows = shown.map(([t, run]) => {
      const test = DATA.tests[t];
      const key = (t + 1) + "." + run.n;
      const open = el("button", { type: "button", "aria-expanded": state.run === key ? "true" : "false" }, state.run === key ? "Close" : "Open");
      open.setAttribute("data-open", key);
      open.addEventListener("click", () => { state.run = state.run === key ? "" : key; refocus = '[data-open="' + key + '"]'; writeState(state); });
      return el("tr", { class: state.run === key ? "open run" : "run", "data-run": key, "data-passed": run.p },
        el("td", {}, open), el("td", {}, verdict(run.p)), el("td", {}, test.name), el("td", { class: "num" }, String(run.n)),
        el("td", { class: "mono" }, source(test, run)), el("td", { class: "num" }, String(run.k)),
        el("td", {}, run.x.length ? run.x.join(", ") : "none"));
    });
    const list = el("table", { class: "runs", tabindex: "-1" },
      el("thead", {}, el("tr", {}, ["", "Verdict", "Test", "Run", "Source", "Calls", "Findings"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows));
    listArea.replaceChildren(pager, list, runDetail(state.run));
    if (refocus) {
      const target = listArea.querySelector(refocus);
      // A disabled button (the last page reached) cannot hold the focus: the list can.
      (target && !target.disabled ? target : list).focus();
      refocus = null;
    }
  }

  // A value of a grader's entry, in words: strings as they are, anything else as JSON.
  function shown(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  // An entry's value with each call number shown with its tool, from the calls the page
  // holds: the JSON report names a call by its number, and each grader says under which
  // keys (`keys`, the third item of its list in `test.lists`): a number, a list of them, or
  // pairs whose first item is one.
  function withTools(name, value, calls, keys) {
    const tool = (n) => (typeof n === "number" && calls[n - 1] ? n + " " + calls[n - 1][0] : n);
    const call = (item) => (Array.isArray(item) ? [tool(item[0]), ...item.slice(1)] : tool(item));
    if (keys.includes(name)) return Array.isArray(value) ? value.map(call) : tool(value);
    if (Array.isArray(value)) return value.map((item) => withTools("", item, calls, keys));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withTools(key, item, calls, keys)]));
    }
    return value;
  }

  function entryLine(entry, calls, keys) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return el("li", { class: "mono" }, shown(entry));
    const fields = Object.entries(entry).filter(([name]) => !["run", "source", "line"].includes(name));
    return el("li", { class: "mono" }, fields.map(([name, value]) => name + ": " + shown(withTools(name, value, calls, keys))).join("; "));
  }

  function runDetail(key) {
    if (!key) return el("div", { id: "run-detail" });
    const [t, n] = key.split(".").map((part) => parseInt(part, 10));
    const test = DATA.tests[t - 1];
    const run = test && test.runs[n - 1];
    if (!run) return el("div", { id: "run-detail" }, el("p", {}, "There is no run " + key + "."));
    const detail = el("div", { id: "run-detail", class: "run-detail", "data-run": key });
    detail.append(el("h3", {}, verdict(run.p), " Run " + run.n + " of ", test.name));
    detail.append(el("p", {}, "Source ", el("code", {}, source(test, run)), "; " + plural(run.k, "call", "calls") + "."));
    if (run.m.length) detail.append(el("p", {}, "Its metrics alone: ", test.run_metrics.map((name, i) => name + " " + run.m[i]).join(", "), "."));
    detail.append(el("h3", {}, "Findings"));
    const byList = new Map();
    for (const [list, entry] of run.g) {
      if (!byList.has(list)) byList.set(list, []);
      byList.get(list).push(entry);
    }
    if (byList.size === 0) detail.append(el("p", {}, "No grader wrote anything about this run."));
    for (const [list, entries] of byList) {
      const name = test.lists[list] ? test.lists[list].slice(0, 2).join(" › ") : "list " + list;
      const keys = test.lists[list] ? test.lists[list][2] : [];
      detail.append(el("p", {}, el("strong", {}, name)), el("ul", { class: "entries" }, entries.map((entry) => entryLine(entry, run.c, keys))));
    }
    detail.append(el("h3", {}, "Calls, in order"));
    if (run.c.length < run.k) detail.append(el("p", { class: "muted" }, "The first " + run.c.length + " of " + run.k + " calls are shown."));
    detail.append(table(["#", "Step", "Tool", "Status", "Arguments", "Result"], run.c.map(([tool, status, step, args, result], i) => [
      String(i + 1), String(step), el("code", {}, tool), el("span", { class: "status-" + status }, status),
      el("pre", {}, args), result === null ? el("span", { class: "muted" }, "no result") : el("pre", {}, result),
    ]), [true, true, false, false, false, false]));
    return detail;
  }

  app.append(header());
  DATA.tests.forEach((test, i) => app.append(testSection(test, i)));
  explorer.append(el("h2", {}, "Runs"),
    el("p", { class: "muted" }, "Arguments and results longer than " + DATA.caps.value_bytes + " bytes, and findings longer than " + DATA.caps.entry_bytes +
      " bytes, are cut; a run shows at most " + DATA.caps.calls + " calls."),
    explorerControls(), listArea);
  app.append(explorer);
  drawRuns();
  window.addEventListener("hashchange", () => {
    if (location.hash.startsWith("#test-")) return;
    drawRuns();
    // A link of a test's section (the runs behind a failed gate) leads to the explorer,
    // further down the page: show what it opened.
    document.getElementById(state.run ? "run-detail" : "runs").scrollIntoView();
  });
})();
