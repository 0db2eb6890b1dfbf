/* tfspeedlab speed simulator: the cost model of tfspeedlab/model.py, in the browser.
 *
 * The model (keep in step with tfspeedlab/model.py; tests/test_simulator.py
 * evaluates both on a grid of inputs and compares):
 *   per call  = call + ops * (op + element * elements)
 *   first call adds trace + trace_op * ops (tracing, and for XLA compiling)
 * Parameters per runner are fitted from results/<runner>/ when the site is
 * built and served as assets/simulator/params.json.
 */
(function (root) {
  "use strict";

  var MODES = ["eager", "graph", "xla"];

  function perCall(costs, ops, elements) {
    return costs.call_s + ops * (costs.op_s + costs.element_s * elements);
  }

  function firstCallExtra(costs, ops) {
    return costs.trace_s + costs.trace_op_s * ops;
  }

  function total(costs, ops, elements, calls) {
    return firstCallExtra(costs, ops) + calls * perCall(costs, ops, elements);
  }

  function breakEvenOps(model, elements, mode) {
    var eager = model.modes.eager, other = model.modes[mode || "graph"];
    var saving = (eager.op_s + eager.element_s * elements) - (other.op_s + other.element_s * elements);
    if (saving <= 0) return null;
    return Math.max((other.call_s - eager.call_s) / saving, 0);
  }

  function paybackCalls(model, ops, elements, mode) {
    var other = model.modes[mode || "graph"];
    var saving = perCall(model.modes.eager, ops, elements) - perCall(other, ops, elements);
    if (saving <= 0) return null;
    return firstCallExtra(other, ops) / saving;
  }

  /* Everything the page shows, for one set of inputs. */
  function predict(model, ops, elements, calls) {
    var out = { perCall: {}, total: {} };
    MODES.forEach(function (mode) {
      out.perCall[mode] = perCall(model.modes[mode], ops, elements);
      out.total[mode] = total(model.modes[mode], ops, elements, calls);
    });
    out.speedupGraph = out.perCall.eager / out.perCall.graph;
    out.speedupXla = out.perCall.eager / out.perCall.xla;
    out.breakEvenOps = breakEvenOps(model, elements, "graph");
    out.paybackCalls = paybackCalls(model, ops, elements, "graph");
    return out;
  }

  var api = { MODES: MODES, perCall: perCall, total: total, breakEvenOps: breakEvenOps,
              paybackCalls: paybackCalls, predict: predict };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;  // node, for the test that compares with Python
    return;
  }
  root.tfspeedlabModel = api;

  /* ------------------------------------------------------------ page */

  var UNITS = [["ns", 1e-9], ["µs", 1e-6], ["ms", 1e-3], ["s", 1]];

  function formatTime(seconds) {
    var unit = UNITS[0];
    UNITS.forEach(function (u) { if (Math.abs(seconds) >= u[1]) unit = u; });
    return significant(seconds / unit[1]) + " " + unit[0];
  }

  function significant(value) {
    var digits = Math.abs(value) >= 1 ? String(Math.floor(Math.abs(value))).length : 0;
    return value.toFixed(Math.max(3 - digits, 0));
  }

  function show(output, text, seconds) {
    output.textContent = text;
    if (seconds === null || seconds === undefined) output.removeAttribute("data-value");
    else output.setAttribute("data-value", String(seconds));
  }

  function drawChart(svg, model, ops, elements, calls) {
    var width = 640, height = 300, left = 70, right = 20, top = 16, bottom = 44;
    var maxCalls = Math.max(10, calls * 10);
    var xs = [], n;
    for (n = 1; n <= maxCalls; n *= 1.25) xs.push(Math.round(n));
    var series = MODES.map(function (mode) {
      return xs.map(function (x) { return [x, total(model.modes[mode], ops, elements, x)]; });
    });
    var ys = [].concat.apply([], series.map(function (s) { return s.map(function (p) { return p[1]; }); }));
    var yMin = Math.min.apply(null, ys), yMax = Math.max.apply(null, ys);
    function sx(x) { return left + (Math.log(x) / Math.log(maxCalls)) * (width - left - right); }
    function sy(y) {
      var span = Math.log(yMax) - Math.log(yMin) || 1;
      return height - bottom - ((Math.log(y) - Math.log(yMin)) / span) * (height - top - bottom);
    }
    var parts = ['<title>Total time against number of calls, per mode</title>'];
    parts.push('<line class="axis" x1="' + left + '" y1="' + (height - bottom) + '" x2="' + (width - right) +
               '" y2="' + (height - bottom) + '"/>');
    parts.push('<line class="axis" x1="' + left + '" y1="' + top + '" x2="' + left + '" y2="' + (height - bottom) + '"/>');
    var decade;
    for (decade = 1; decade <= maxCalls; decade *= 10) {
      parts.push('<text class="tick" x="' + sx(decade) + '" y="' + (height - bottom + 16) +
                 '" text-anchor="middle">' + decade + '</text>');
    }
    [yMin, Math.sqrt(yMin * yMax), yMax].forEach(function (y) {
      parts.push('<text class="tick" x="' + (left - 6) + '" y="' + (sy(y) + 4) + '" text-anchor="end">' +
                 formatTime(y) + '</text>');
    });
    parts.push('<text class="label" x="' + ((left + width - right) / 2) + '" y="' + (height - 6) +
               '" text-anchor="middle">number of calls (log scale)</text>');
    series.forEach(function (points, i) {
      var d = points.map(function (p, j) { return (j ? "L" : "M") + sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1); });
      parts.push('<path class="series series-' + MODES[i] + '" d="' + d.join("") + '"/>');
      var last = points[points.length - 1];
      parts.push('<text class="legend series-' + MODES[i] + '" x="' + (sx(last[0]) - 4) + '" y="' +
                 (sy(last[1]) - 6) + '" text-anchor="end">' + MODES[i] + '</text>');
    });
    parts.push('<line class="marker" x1="' + sx(calls) + '" y1="' + top + '" x2="' + sx(calls) + '" y2="' +
               (height - bottom) + '"/>');
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.innerHTML = parts.join("");
  }

  function init(container) {
    if (container.getAttribute("data-ready")) return;
    container.setAttribute("data-ready", "loading");
    fetch(container.getAttribute("data-params"))
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (params) { start(container, params); })
      .catch(function (error) {
        container.querySelector(".tfsl-status").textContent =
          "The simulator could not load its parameters (" + error.message + ").";
      });
  }

  function start(container, params) {
    var form = container.querySelector("form");
    var runner = form.elements.runner;
    Array.prototype.forEach.call(runner.options, function (option) {
      if (!params.runners[option.value]) {
        option.disabled = true;
        option.textContent += " (not yet measured)";
      }
    });
    function linked(name) {
      var range = form.elements[name + "_range"], box = form.elements[name];
      range.addEventListener("input", function () { box.value = range.value; update(); });
      box.addEventListener("input", function () { range.value = box.value; update(); });
    }
    function value(name, low) { return Math.max(Number(form.elements[name].value) || low, low); }
    function update() {
      var model = params.runners[runner.value];
      if (!model) return;
      var ops = value("ops", 1), side = value("side", 1), calls = Math.round(value("calls", 1));
      var elements = side * side;
      var p = predict(model, ops, elements, calls);
      function out(name) { return container.querySelector('output[name="' + name + '"]'); }
      MODES.forEach(function (mode) {
        show(out("per_call_" + mode), formatTime(p.perCall[mode]), p.perCall[mode]);
        show(out("total_" + mode), formatTime(p.total[mode]), p.total[mode]);
      });
      show(out("elements"), side + " × " + side + " = " + elements.toLocaleString("en") + " elements", elements);
      show(out("speedup_graph"), significant(p.speedupGraph) + "×", p.speedupGraph);
      show(out("speedup_xla"), significant(p.speedupXla) + "×", p.speedupXla);
      show(out("break_even"), p.breakEvenOps === null ? "never: eager is cheaper per op" :
           "about " + Math.ceil(p.breakEvenOps) + " ops per call", p.breakEvenOps);
      show(out("payback"), p.paybackCalls === null ? "never: the graph is not faster per call" :
           Math.ceil(p.paybackCalls) + " calls", p.paybackCalls);
      drawChart(container.querySelector("svg"), model, ops, elements, calls);
      container.setAttribute("data-ready", "yes");
    }
    linked("ops");
    linked("side");
    form.elements.calls.addEventListener("input", update);
    runner.addEventListener("change", update);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    container.querySelector(".tfsl-status").textContent = "";
    update();
  }

  function initAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".tfsl-simulator"), init);
  }

  // Material's instant navigation swaps pages without a reload: document$
  // emits on every page change; without it, wait for the document.
  if (root.document$ && typeof root.document$.subscribe === "function") {
    root.document$.subscribe(initAll);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initAll);
  } else {
    initAll();
  }
})(this);
