/* tfspeedlab speed simulator: the cost model of tfspeedlab/core/stats/cost_model.py, in the browser.
 *
 * The model (keep in step with cost_model.py; tests/test_simulator.py
 * evaluates both on a grid of inputs and compares):
 *   per op    = op + element * elements + (elements >= split_elements ? split : 0)
 *   per call  = call + ops * per op
 *   first call adds trace + trace_op * ops (tracing, and for XLA compiling)
 *   ± per call = the mode's worst miss on every measured chain (band)
 *   ± total    = band and the tracing line's worst miss, each weighted by its part of the total
 * Parameters per runner are fitted from results/<runner>/ when the site is
 * built and served as assets/simulator/params.json.
 */
(function (root) {
  "use strict";

  var MODES = ["eager", "graph", "xla"];

  function perOp(costs, elements, splitElements) {
    return costs.op_s + costs.element_s * elements + (elements >= splitElements ? costs.split_s : 0);
  }

  function perCall(model, mode, ops, elements) {
    return model.modes[mode].call_s + ops * perOp(model.modes[mode], elements, model.split_elements);
  }

  function firstCallExtra(costs, ops) {
    return costs.trace_s + costs.trace_op_s * ops;
  }

  function total(model, mode, ops, elements, calls) {
    return firstCallExtra(model.modes[mode], ops) + calls * perCall(model, mode, ops, elements);
  }

  function totalBand(model, mode, ops, elements, calls) {
    var extra = firstCallExtra(model.modes[mode], ops), repeated = calls * perCall(model, mode, ops, elements);
    return (extra * model.trace_error[mode] + repeated * model.band[mode]) / (extra + repeated);
  }

  function breakEvenOps(model, elements, mode) {
    var eager = model.modes.eager, other = model.modes[mode || "graph"];
    var saving = perOp(eager, elements, model.split_elements) - perOp(other, elements, model.split_elements);
    if (saving <= 0) return null;
    return Math.max((other.call_s - eager.call_s) / saving, 0);
  }

  function paybackCalls(model, ops, elements, mode) {
    mode = mode || "graph";
    var saving = perCall(model, "eager", ops, elements) - perCall(model, mode, ops, elements);
    if (saving <= 0) return null;
    return firstCallExtra(model.modes[mode], ops) / saving;
  }

  /* Everything the page shows, for one set of inputs. */
  function predict(model, ops, elements, calls) {
    var out = { perCall: {}, total: {}, bandPerCall: {}, bandTotal: {} };
    MODES.forEach(function (mode) {
      out.perCall[mode] = perCall(model, mode, ops, elements);
      out.total[mode] = total(model, mode, ops, elements, calls);
      out.bandPerCall[mode] = model.band[mode];
      out.bandTotal[mode] = totalBand(model, mode, ops, elements, calls);
    });
    out.speedupGraph = out.perCall.eager / out.perCall.graph;
    out.speedupXla = out.perCall.eager / out.perCall.xla;
    out.breakEvenOps = breakEvenOps(model, elements, "graph");
    out.paybackCalls = paybackCalls(model, ops, elements, "graph");
    out.extrapolated = ops > model.measured_ops || elements > model.measured_elements;
    return out;
  }

  /* The model with a reader's own graph call cost and eager op cost (CostModel.with_reader_costs);
     null keeps the fitted cost (the plain graph's and XLA's own call costs stay apart). */
  function withReaderCosts(model, graphCallS, eagerOpS) {
    var copy = JSON.parse(JSON.stringify(model));
    if (graphCallS !== null) {
      copy.modes.graph.call_s = graphCallS;
      copy.modes.xla.call_s = graphCallS;  // an XLA function is called through tf.function too
    }
    if (eagerOpS !== null) copy.modes.eager.op_s = eagerOpS;
    return copy;
  }

  var api = { MODES: MODES, perCall: perCall, total: total, totalBand: totalBand, breakEvenOps: breakEvenOps,
              paybackCalls: paybackCalls, predict: predict, withReaderCosts: withReaderCosts };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;  // node, for the test that compares with Python
    return;
  }
  root.tfspeedlabModel = api;

  /* ------------------------------------------------------------ page */

  // Past a minute, minutes, hours, days and years read better than a long count of seconds.
  var UNITS = [["ns", 1e-9], ["µs", 1e-6], ["ms", 1e-3], ["s", 1], ["min", 60], ["h", 3600], ["days", 86400],
               ["years", 365.25 * 86400]];
  // Chart text is 12 px; labels closer than this overlap.
  var LABEL_GAP = 16;
  // The most points a line of the chart has: calls up to the box's maximum (1e8) take 93.
  var MAX_POINTS = 200;

  function formatTime(seconds) {
    var unit = UNITS[0];
    UNITS.forEach(function (u) { if (Math.abs(seconds) >= u[1]) unit = u; });
    return significant(seconds / unit[1]) + "\u00a0" + unit[0];
  }

  function significant(value) {
    var digits = Math.abs(value) >= 1 ? String(Math.floor(Math.abs(value))).length : 0;
    return value.toFixed(Math.max(3 - digits, 0));
  }

  /* 10^power as a tick label: 1, 10, 100, 1k … 100k, 1M … */
  function compactCount(power) {
    var suffixes = ["", "k", "M", "B"], group = Math.min(Math.floor(power / 3), suffixes.length - 1);
    return Math.pow(10, power - 3 * group) + suffixes[group];
  }

  function counted(count, noun) { return count.toLocaleString("en") + " " + noun + (count === 1 ? "" : "s"); }

  // A miss of 100% or more is a factor: "±311%" read as a time that could be negative.
  function percent(fraction) {
    if (fraction >= 1) return "up to " + (1 + fraction).toFixed(1) + "× off";
    return "±" + Math.round(fraction * 100) + "%";
  }

  /* A speed-up as the guide writes every comparison: a factor of at least 1 and its word. */
  function factor(speedup) {
    if (speedup >= 1) return significant(speedup) + "× faster than eager";
    return significant(1 / speedup) + "× slower than eager";
  }

  function show(output, text, value) {
    output.textContent = text;
    if (value === null || value === undefined) output.removeAttribute("data-value");
    else output.setAttribute("data-value", String(value));
  }

  /* Label positions near the wanted ones, at least LABEL_GAP apart, inside [low, high]. */
  function spread(wanted, low, high) {
    var order = wanted.map(function (y, i) { return i; }).sort(function (a, b) { return wanted[a] - wanted[b]; });
    var placed = wanted.slice(), i;
    for (i = 0; i < order.length; i++) {
      placed[order[i]] = Math.max(wanted[order[i]], i ? placed[order[i - 1]] + LABEL_GAP : low);
    }
    for (i = order.length - 1; i >= 0; i--) {
      placed[order[i]] = Math.min(placed[order[i]], i < order.length - 1 ? placed[order[i + 1]] - LABEL_GAP : high);
    }
    return placed;
  }

  function text(className, x, y, anchor, content, extra) {
    return '<text class="' + className + '" x="' + x.toFixed(1) + '" y="' + y.toFixed(1) + '" text-anchor="' +
           anchor + '"' + (extra || "") + '>' + content + '</text>';
  }

  function drawChart(svg, model, ops, elements, calls) {
    // Drawn at the width it is shown at, so its text stays 12 px on a phone.
    var shown = svg.getBoundingClientRect().width;
    var width = Math.round(Math.min(Math.max(shown || 640, 300), 640)), height = 320;
    var left = 78, right = 52, top = 30, bottom = 44, plotBottom = height - bottom;
    var maxCalls = Math.max(10, calls * 10);
    // The inputs are checked before this runs; still, a chart that cannot be drawn is left empty,
    // and no loop below runs on a value that does not end it (calls of 1.8e307 made this one endless).
    if (!isFinite(maxCalls) || !isFinite(ops) || !isFinite(elements)) {
      svg.innerHTML = "";
      return;
    }
    var xs = [], n, i;
    for (n = 1, i = 0; n <= maxCalls && i < MAX_POINTS; n *= 1.25, i++) xs.push(Math.round(n));
    var series = MODES.map(function (mode) {
      return xs.map(function (x) { return [x, total(model, mode, ops, elements, x)]; });
    });
    var ys = [].concat.apply([], series.map(function (s) { return s.map(function (p) { return p[1]; }); }));
    var yMin = Math.min.apply(null, ys), yMax = Math.max.apply(null, ys);
    function sx(x) { return left + (Math.log(x) / Math.log(maxCalls)) * (width - left - right); }
    function sy(y) {
      var span = Math.log(yMax) - Math.log(yMin) || 1;
      return plotBottom - ((Math.log(y) - Math.log(yMin)) / span) * (plotBottom - top);
    }
    var parts = ['<title>Total time against number of calls, per mode</title>'];
    parts.push('<line class="axis" x1="' + left + '" y1="' + plotBottom + '" x2="' + (width - right) +
               '" y2="' + plotBottom + '"/>');
    parts.push('<line class="axis" x1="' + left + '" y1="' + top + '" x2="' + left + '" y2="' + plotBottom + '"/>');
    // Every decade while they fit, else every second or third: tick labels stay apart on a phone.
    var decades = Math.floor(Math.log(maxCalls) / Math.LN10 + 1e-9), step = 1, power;
    while ((width - left - right) * step / decades < 40 && step < decades) step++;
    for (power = 0; power <= decades; power += step) {
      parts.push(text("tick", sx(Math.pow(10, power)), plotBottom + 16, "middle", compactCount(power)));
    }
    [yMin, Math.sqrt(yMin * yMax), yMax].forEach(function (y) {
      parts.push(text("tick", left - 6, sy(y) + 4, "end", formatTime(y)));
    });
    parts.push(text("label axis-title", (left + width - right) / 2, height - 6, "middle", "number of calls (log scale)"));
    var middle = (top + plotBottom) / 2;
    parts.push(text("label axis-title", 14, middle, "middle", "total time (log scale)",
                    ' transform="rotate(-90 14 ' + middle.toFixed(1) + ')"'));
    // The reader's number of calls: a dashed line, named above the plot.
    var markerX = sx(calls);
    parts.push('<line class="marker" x1="' + markerX + '" y1="' + top + '" x2="' + markerX + '" y2="' + plotBottom + '"/>');
    // Kept over the plot, clear of the mode labels in the right margin (12 px text: under 7 px a character).
    var markerText = "your " + counted(calls, "call");
    var half = markerText.length * 7 / 2;
    var anchor = markerX - half < left ? "start" : (markerX + half > width - right ? "end" : "middle");
    parts.push(text("marker-label", markerX, top - 8, anchor, markerText));
    var wanted = series.map(function (points) { return sy(points[points.length - 1][1]) + 4; });
    var placed = spread(wanted, top + 4, plotBottom + 4);
    series.forEach(function (points, i) {
      var d = points.map(function (p, j) { return (j ? "L" : "M") + sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1); });
      parts.push('<path class="series series-' + MODES[i] + '" d="' + d.join("") + '"/>');
      parts.push(text("legend series-" + MODES[i], width - right + 6, placed[i], "start", MODES[i]));
    });
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
    var labels = {ops: "Ops per call", side: "Tensor side", calls: "Number of calls",
                  call_us: "A tf.function call's fixed cost", op_us: "One eager op's cost"};
    // The reader's two costs start at the runner's fitted ones, shown to three figures; while a box
    // still shows what was put in it, the fitted model is used unchanged (a rounded cost would move
    // every prediction a little off it, and XLA keeps its own fitted call cost).
    var COSTS = {call_us: ["graph", "call_s"], op_us: ["eager", "op_s"]};
    function fillCosts() {
      var model = params.runners[runner.value];
      if (!model) return;
      Object.keys(COSTS).forEach(function (name) {
        var shown = significant(model.modes[COSTS[name][0]][COSTS[name][1]] * 1e6);
        form.elements[name].value = shown;
        form.elements[name].setAttribute("data-fitted", shown);
      });
    }
    // A refusal names the box it came from, so that the box can be marked.
    function refusal(name, message) {
      var error = new RangeError(message);
      error.box = name;
      return error;
    }
    function got(name, text) { return " (got " + (text.trim() === "" ? "nothing" : JSON.stringify(text)) + ")."; }
    // A number box the browser cannot hold (1e400) reads as empty, its validity as bad input.
    function tooLarge(name) {
      var box = form.elements[name];
      if (!(box.validity && box.validity.badInput)) return;
      throw refusal(name, labels[name] + " must be a number from " + Number(box.min || 1).toLocaleString("en") +
                          " to " + Number(box.max).toLocaleString("en") + " (got a number too large to hold).");
    }
    // Above its box's max, an input is refused too: the browser enforces a number box's range only on
    // a form it submits, and a side of 1e200 read "≈ Infinity years", calls of 1e308 hung the tab.
    function atMost(name, number, unit) {
      var high = Number(form.elements[name].max);
      if (form.elements[name].max !== "" && number > high) {
        throw refusal(name, labels[name] + " must be at most " + high.toLocaleString("en") + unit +
                            got(name, form.elements[name].value));
      }
      return number;
    }
    function costS(model, name) {
      var box = form.elements[name], text = box.value, number = Number(text);
      if (text === box.getAttribute("data-fitted")) return null;
      // A decimal comma ("2,5") is refused, never read as 25 or as 2.5: "1,000" could mean either.
      if (text.indexOf(",") !== -1) {
        throw refusal(name, labels[name] + " takes a point for decimals, as in 2.5" + got(name, text));
      }
      if (text.trim() === "" || !isFinite(number) || number <= 0) {
        throw refusal(name, labels[name] + " must be a number of µs above 0" + got(name, text));
      }
      return atMost(name, number, " µs") * 1e-6;
    }
    // An input the model cannot take (empty, not a number, below 1, above its box's max) is refused
    // with a message, never quietly read as another value.
    function value(name) {
      tooLarge(name);
      var text = form.elements[name].value, number = Number(text);
      if (text.trim() === "" || !isFinite(number) || number < 1) {
        throw refusal(name, labels[name] + " must be a number of at least 1" + got(name, text));
      }
      return atMost(name, number, "");
    }
    // What every output says before the first figures: a refused input brings it back, so that no
    // figure of earlier inputs stays on screen beside the message.
    var outputs = Array.prototype.map.call(container.querySelectorAll("output"), function (output) {
      return [output, output.textContent];
    });
    function markInvalid(name) {
      Array.prototype.forEach.call(form.querySelectorAll("input"), function (box) {
        if (box.name === name) box.setAttribute("aria-invalid", "true");
        else box.removeAttribute("aria-invalid");
      });
    }
    function refuse(status, message, box) {
      status.textContent = message;
      status.setAttribute("data-error", "yes");
      markInvalid(box);
      outputs.forEach(function (blank) { show(blank[0], blank[1], null); });
      container.querySelector("svg").innerHTML = "";
    }
    function finite(p) {
      var numbers = [p.speedupGraph, p.speedupXla];
      ["perCall", "total", "bandPerCall", "bandTotal"].forEach(function (part) {
        MODES.forEach(function (mode) { numbers.push(p[part][mode]); });
      });
      return numbers.every(isFinite);
    }
    function update() {
      var model = params.runners[runner.value];
      if (!model) return;
      var status = container.querySelector(".tfsl-status");
      var ops, side, calls;
      try {
        ops = value("ops"); side = value("side"); calls = Math.round(value("calls"));
        model = withReaderCosts(model, costS(model, "call_us"), costS(model, "op_us"));
      } catch (error) {
        refuse(status, error.message, error.box);
        return;
      }
      var elements = side * side;
      var p = predict(model, ops, elements, calls);
      if (!finite(p)) {  // within every range this cannot happen; a figure of Infinity or NaN must not show
        refuse(status, "These inputs are beyond what the simulator can compute.");
        return;
      }
      status.removeAttribute("data-error");
      status.textContent = "";
      markInvalid(null);
      function out(name) { return container.querySelector('output[name="' + name + '"]'); }
      MODES.forEach(function (mode) {
        show(out("per_call_" + mode), "≈ " + formatTime(p.perCall[mode]), p.perCall[mode]);
        show(out("band_per_call_" + mode), percent(p.bandPerCall[mode]), p.bandPerCall[mode]);
        show(out("total_" + mode), "≈ " + formatTime(p.total[mode]), p.total[mode]);
        show(out("band_total_" + mode), percent(p.bandTotal[mode]), p.bandTotal[mode]);
      });
      show(out("elements"), side + " × " + side + " = " + counted(elements, "element"), elements);
      show(out("speedup_graph"), factor(p.speedupGraph), p.speedupGraph);
      show(out("speedup_xla"), factor(p.speedupXla), p.speedupXla);
      show(out("break_even"), p.breakEvenOps === null ? "never: eager is cheaper per op" :
           "from " + counted(Math.ceil(p.breakEvenOps), "op") + " per call (the lines cross at " +
           p.breakEvenOps.toFixed(1) + ")", p.breakEvenOps);
      show(out("payback"), p.paybackCalls === null ? "never: the graph is not faster per call" :
           counted(Math.ceil(p.paybackCalls), "call"), p.paybackCalls);
      show(out("extrapolated"), p.extrapolated ?
           "Beyond what was measured (up to " + model.measured_ops.toLocaleString("en") + " ops, " +
           model.measured_elements.toLocaleString("en") + " elements): the model extrapolates, and the ± " +
           "no longer bounds its miss." : "", p.extrapolated ? 1 : 0);
      drawChart(container.querySelector("svg"), model, ops, elements, calls);
      container.setAttribute("data-ready", "yes");
    }
    linked("ops");
    linked("side");
    form.elements.calls.addEventListener("input", update);
    form.elements.call_us.addEventListener("input", update);
    form.elements.op_us.addEventListener("input", update);
    runner.addEventListener("change", function () { fillCosts(); update(); });
    fillCosts();
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    // The chart is drawn at its shown width: redraw when that changes (phone rotated, window resized).
    var drawnWidth = null;
    root.addEventListener("resize", function () {
      var svg = container.querySelector("svg");
      if (!container.isConnected || !svg) return;
      var width = svg.getBoundingClientRect().width;
      if (width !== drawnWidth) { drawnWidth = width; update(); }
    });
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
