// Times JSMinesweeper's ProbabilityEngine on positions given as JSON; bench/probabilities.py drives it.
//
//     node bench/jsminesweeper_engine.cjs PATH/TO/JSMinesweeper < positions.json > answers.json
//
// Nothing of JSMinesweeper is in this repository: its source files are read from the checkout named on the
// command line and evaluated with the vm module, all in one context, with the few globals its web page would
// have set up. This file only builds boards, collects the engine's inputs the way its solver does for a
// position, times the runs and reads the answers out.
//
// Input: {"repeats": R, "warmup": W, "positions": [{"width", "height", "mines", "rows": ["..1.", ...]}, ...]}
// ('.' a covered cell, '0'-'8' a revealed number, Kaboom's position format without flags or mines).
//
// For each position, R times: build a Board from the rows, then (a) the solver's preparation for a position in
// analysis mode: board.resetForAnalysis(false, true) (no flags; covered cells that every neighbouring number
// says are mines become "solver found" mines) and the scan its doSolve does (witnesses: revealed numbers with a
// covered neighbour that is not a found mine; witnessed: those covered neighbours, in first-seen order; mines
// left and covered cells left without the found mines); then (b) new ProbabilityEngine(...) and process(), with
// options {playStyle: PLAY_STYLE_FLAGS, fullProbability: true, verbose: false} as main.js's analysis passes
// (fullProbability: no stop at the first independent edge with a certain clear; every box gets a probability).
// The engine's candidate-dead-tile check and isolated-edge set-up cannot be switched off by any option and are
// timed with it. When no mines are left, or every covered cell is a mine, doSolve answers without the engine,
// and so does this harness. engine_ns is the best of the R runs of (b), whole_ns the best of the R runs of
// board + (a) + (b). process.hrtime.bigint() around each. Before any timing, the first W positions are run
// once each, untimed (JIT and the binomial cache warm up as in a page that has been used).
//
// Output: {"node": version, "results": [{"engine_ns", "whole_ns", "engine": bool, "cells": [[index, p, exact],
// ...], "outside": [p, exact] | null}, ...]}, where p is the engine's own answer as a mine probability
// (1 - its safety, which it rounds down to 8 decimals from BigInt tallies) and exact is floor(10^18 * tally /
// solutions) from the same BigInt tallies, as a decimal string. "cells" lists every covered cell in a box or
// found as a mine; every other covered cell is off the edge and takes "outside".

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

// What the engine needs, in load order: the binomials it counts with, the board model, the brute-force
// classes its isolated-edge check constructs, solver_main.js for the shared helpers and constants
// (combination, divideBigInt, PLAY_STYLE_*), and the engine.
const SOURCES = [
    "Minesweeper/Utility/PrimeSieve.js",
    "Minesweeper/Utility/Binomial.js",
    "Minesweeper/client/Tile.js",
    "Minesweeper/client/Board.js",
    "Minesweeper/client/Brute_force.js",
    "Minesweeper/client/solver_main.js",
    "Minesweeper/client/solver_probability_engine.js",
];

// The binomial tables main.js sets up at page load: coefficients up to n = 65000, a look-up table to 500, a
// cache of 5000 entries for n above 500.
const BINOMIAL_MAX_N = 65000;
const BINOMIAL_LOOKUP = 500;
const BINOMIAL_CACHE_SIZE = 5000;

const SCALE = 10n ** 18n;

// Their scripts run in this process's own context (vm.runInThisContext), as in a page: in a context of its own
// (vm.createContext) every global they read, Math included, goes through the context's interceptors, which
// made the engine about ten times slower. Their top-level names become globals of this process; this file's
// own names are module-scoped and cannot clash with them. console.log, which their code writes progress to,
// goes to stderr (with --verbose) or nowhere: stdout carries the answers.
function loadEngine(checkout, verbose) {
    const toStderr = (...args) => process.stderr.write(args.join(" ") + "\n");
    console.log = console.info = verbose ? toStderr : () => {};
    console.warn = console.error = toStderr;
    // Globals of the page (main.js) the engine reads: analysis mode is off, the binomial cache is made below.
    vm.runInThisContext("var analysisMode = false; var binomialCache = null;", { filename: "stubs" });
    for (const source of SOURCES) {
        const file = path.join(checkout, source);
        vm.runInThisContext(fs.readFileSync(file, "utf8"), { filename: file });
    }
    vm.runInThisContext(
        `binomialCache = new BinomialCache(${BINOMIAL_CACHE_SIZE}, ${BINOMIAL_LOOKUP},` +
            ` new Binomial(${BINOMIAL_MAX_N}, ${BINOMIAL_LOOKUP}));`,
        { filename: "setup" },
    );
    return vm.runInThisContext("({ Board, ProbabilityEngine, PLAY_STYLE_FLAGS })", { filename: "exports" });
}

function makeBoard(js, position) {
    const board = new js.Board(0, position.width, position.height, position.mines, 0, "kaboom-bench");
    for (let y = 0; y < position.height; y++) {
        const row = position.rows[y];
        for (let x = 0; x < position.width; x++) {
            const symbol = row.charCodeAt(x) - 48;
            if (symbol >= 0 && symbol <= 8) {
                board.getTileXY(x, y).setValue(symbol);
            }
        }
    }
    return board;
}

// The solver's inputs for the engine, gathered as its doSolve gathers them.
function prepare(board) {
    const bad = board.resetForAnalysis(false, true);
    if (bad != null) {
        throw new Error("JSMinesweeper finds the position invalid at " + bad.asText());
    }
    const witnesses = [];
    const edge = new Set();
    let minesLeft = board.num_bombs;
    let squaresLeft = 0;
    for (const tile of board.tiles) {
        if (tile.isSolverFoundBomb()) {
            minesLeft--;
        } else if (tile.isCovered()) {
            squaresLeft++;
        } else {
            let open = false;
            for (const neighbour of board.getAdjacent(tile)) {
                if (neighbour.isCovered() && !neighbour.isSolverFoundBomb()) {
                    open = true;
                    edge.add(neighbour.index);
                }
            }
            if (open) {
                witnesses.push(tile);
            }
        }
    }
    const witnessed = Array.from(edge, (index) => board.getTile(index));
    return { witnesses, witnessed, minesLeft, squaresLeft };
}

function runEngine(js, board, inputs) {
    if (inputs.minesLeft === 0 || inputs.minesLeft === inputs.squaresLeft) {
        return null;
    }
    const options = { playStyle: js.PLAY_STYLE_FLAGS, fullProbability: true, verbose: false };
    const engine = new js.ProbabilityEngine(
        board,
        inputs.witnesses,
        inputs.witnessed,
        inputs.squaresLeft,
        inputs.minesLeft,
        options,
    );
    if (!engine.validWeb) {
        throw new Error("JSMinesweeper's probability engine cannot run on this position");
    }
    engine.process();
    if (engine.finalSolutionsCount === 0n) {
        throw new Error("JSMinesweeper finds no layout for this position");
    }
    return engine;
}

function once(js, position) {
    const start = process.hrtime.bigint();
    const board = makeBoard(js, position);
    const inputs = prepare(board);
    const middle = process.hrtime.bigint();
    const engine = runEngine(js, board, inputs);
    const end = process.hrtime.bigint();
    return { board, inputs, engine, engineNs: end - middle, wholeNs: end - start };
}

function exact(numerator, denominator) {
    return ((numerator * SCALE) / denominator).toString();
}

function answers(run) {
    const { board, inputs, engine } = run;
    const cells = [];
    for (const tile of board.tiles) {
        if (tile.isCovered() && tile.isSolverFoundBomb()) {
            cells.push([tile.index, 1, SCALE.toString()]);
        }
    }
    if (engine === null) {
        // Decided without the engine: every other covered cell is safe (no mines left) or a mine.
        const value = inputs.minesLeft === 0 ? 0 : 1;
        for (const tile of board.tiles) {
            if (tile.isCovered() && !tile.isSolverFoundBomb()) {
                cells.push([tile.index, value, value === 0 ? "0" : SCALE.toString()]);
            }
        }
        return { engine: false, cells, outside: null };
    }
    const solutions = engine.finalSolutionsCount;
    for (const box of engine.boxes) {
        const probability = 1 - engine.boxProb[box.uid];
        const tally = exact(box.mineTally, solutions);
        for (const tile of box.tiles) {
            cells.push([tile.index, probability, tally]);
        }
    }
    let outside = null;
    if (engine.TilesOffEdge > 0) {
        // The engine keeps the off-edge tally divided by the off-edge cell count, which divides it exactly.
        outside = [1 - engine.offEdgeProbability, exact(engine.offEdgeMineTally, solutions)];
    }
    return { engine: true, cells, outside };
}

function main() {
    const args = process.argv.slice(2);
    const verbose = args.includes("--verbose");
    const positional = args.filter((arg) => !arg.startsWith("--"));
    if (positional.length !== 1) {
        process.stderr.write("usage: node jsminesweeper_engine.cjs [--verbose] JSMINESWEEPER_CHECKOUT < in > out\n");
        process.exit(2);
    }
    const js = loadEngine(positional[0], verbose);
    const request = JSON.parse(fs.readFileSync(0, "utf8"));
    const repeats = Math.max(1, request.repeats ?? 3);
    const positions = request.positions;
    for (const position of positions.slice(0, request.warmup ?? positions.length)) {
        once(js, position);
    }
    const results = positions.map((position) => {
        let best = null;
        let engineNs = null;
        let wholeNs = null;
        for (let i = 0; i < repeats; i++) {
            const run = once(js, position);
            engineNs = engineNs === null || run.engineNs < engineNs ? run.engineNs : engineNs;
            wholeNs = wholeNs === null || run.wholeNs < wholeNs ? run.wholeNs : wholeNs;
            best = run;
        }
        return { engine_ns: Number(engineNs), whole_ns: Number(wholeNs), ...answers(best) };
    });
    process.stdout.write(JSON.stringify({ node: process.version, results }));
}

main();
