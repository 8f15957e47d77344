// @ts-check
// The shapes the front end reads, for the type checker only (JSDoc; `make jscheck`). Never loaded by a page: no
// module imports it at run time, only `import('./types.js')` in comments. The snapshot is written by
// planviz/frontends/snapshot.py; its page form by pagedata.py (pagedata.schema.json).

/**
 * The widget's model: anywidget's, or the offline page's stand-in (page.py).
 * @typedef {object} Model
 * @property {(key: string) => any} get
 * @property {(key: string, value: any) => void} set
 * @property {(name: string, f: (...args: any[]) => void) => void} on
 * @property {(name: string, f: (...args: any[]) => void) => void} off
 * @property {() => void} save_changes
 * @property {(msg: object) => void} send
 */

/**
 * One look of a node (the page data's `looks`, pagedata.schema.json lookRecords).
 * @typedef {object} Look
 * @property {string} status        the status class (status-done, ...)
 * @property {number} flags         bits of FLAGS: voided, kept, conflict, not_run
 * @property {string} fill          the first shape's fill
 * @property {string} stroke        its outline colour
 * @property {string} width         its outline width
 * @property {string} dash          its outline dash
 * @property {string} outer_stroke  the outer shape's outline colour (a double outline)
 * @property {string} outer_width   its width
 * @property {string} outer_dash    its dash
 * @property {string} word          the status word under the label
 * @property {string} tip           the tooltip's last line ('' for none)
 */

/**
 * One event log row (the page data's `log`, pagedata.schema.json logRecords).
 * @typedef {object} LogRow
 * @property {string} time       the event's time as shown
 * @property {string} kind       start, complete, fail, ...
 * @property {string} step       the step's id ('' for none)
 * @property {string} message    what the event says
 * @property {number} attempt    the step's attempt
 * @property {string[]} observed the facts the observation reported
 * @property {string} calls      the model calls the observation names, as text ('' for none)
 */

/**
 * What event i changes: d (node, look before, look after triples), g/l (facts gained/lost), ri/ro (steps that
 * became/stopped being ready), vo/ke (voided/kept), c (the picture's caption lines, kept only where the script
 * cannot compose them; absent: composed from the event's log row, runview.js eventLines), v (plan version from
 * here), t (time).
 * @typedef {object} EventDelta
 * @property {number[]} [d]
 * @property {number[]} [g]
 * @property {number[]} [l]
 * @property {number[]} [ri]
 * @property {number[]} [ro]
 * @property {number[]} [vo]
 * @property {number[]} [ke]
 * @property {string[]} [c]
 * @property {number} [v]
 * @property {number | null} [t]
 */

/**
 * A model call that led to a step (pagedata.schema.json `call`); null where the trace does not say.
 * @typedef {object} Call
 * @property {string} model
 * @property {number | null} start
 * @property {number | null} duration
 * @property {number | null} input_tokens
 * @property {number | null} output_tokens
 * @property {number | null} cost
 * @property {boolean} ok
 * @property {string | null} input   the last message it was given
 * @property {string | null} output  its reply, or the tool call it asked for
 */

/**
 * What a click on a step shows.
 * @typedef {object} StepDetail
 * @property {string} action
 * @property {string} tool
 * @property {string} kind
 * @property {{name: string, value: string}[]} arguments
 * @property {string[]} requires
 * @property {string[]} produces
 * @property {string} evidence
 * @property {string[]} depends_on
 * @property {Call[]} [calls]
 * @property {string | null} [error]
 * @property {string | null} [result]
 * @property {number | null} [ended]
 */

/**
 * One plan version's picture.
 * @typedef {object} VersionSpec
 * @property {number} version
 * @property {string} svg
 * @property {string[]} nodes   the SVG ids of its nodes
 * @property {string[]} ids     the step ids of its nodes
 * @property {number[]} cuts    characters of each node's tooltip that the looks rewrite
 * @property {number[]} looks   each node's look at the last event
 * @property {string[]} legend  legend keys always shown
 * @property {number} [legible] the width (px) under which its text is too small
 */

/**
 * The timeline's lanes (pictures/gantt.py lane_columns): one entry per call in the columns start..step.
 * @typedef {object} Lanes
 * @property {string[]} lanes
 * @property {number[]} start
 * @property {number[]} end
 * @property {number[]} lane
 * @property {number[]} look
 * @property {number[]} step
 * @property {string[]} steps
 * @property {string[]} looks
 * @property {string[]} fills
 * @property {string[]} strokes
 * @property {string} now
 */

/**
 * A legend swatch (pagedata.schema.json legendRecords).
 * @typedef {{key: string, text: string, fill: string, stroke: string, width: number, style: string}} LegendEntry
 */

/**
 * What an importer found (pagedata.schema.json findingRecords).
 * @typedef {{severity: string, code: string, message: string, steps: string}} Finding
 */

/**
 * A turn of the thread (pagedata.schema.json turnRecords): who said what, and when (null: unknown).
 * @typedef {{role: string, text: string, time: number | null}} Turn
 */

/**
 * How the script cuts the caption lines it composes (captions.py EVENT_WIDTH, EVENT_LINES): a text of at most
 * `width` characters on the first line, else cut at its last space within the first width + 1; `lines` lines in
 * all (the rest blank).
 * @typedef {{width: number, lines: number}} EventLinesRule
 */

/**
 * One run's snapshot (snapshot.py run_snapshot), decoded.
 * @typedef {object} RunSnapshot
 * @property {EventDelta[]} events
 * @property {LogRow[]} log
 * @property {Record<string, StepDetail>} details
 * @property {Look[]} looks
 * @property {string[]} facts
 * @property {string[]} steps
 * @property {string[]} look_legend
 * @property {number[]} last_facts
 * @property {number[]} last_ready
 * @property {VersionSpec[]} versions
 * @property {LegendEntry[]} legend
 * @property {Finding[]} [findings]
 * @property {Turn[]} [turns]
 * @property {{name: string, value: string}[]} metrics
 * @property {[string, string][]} [tabs]
 * @property {string} gantt
 * @property {Lanes} [lanes]
 * @property {string} [unit]
 * @property {EventLinesRule} event_lines
 * @property {string} goal
 * @property {string} badge
 * @property {string} outcome
 * @property {boolean} [unfinished]
 * @property {{ms: number, hold?: number}} [autoplay]
 */

/**
 * Several runs on one stepper (snapshot.py pair_snapshot; slides.py flipbook_snapshot), decoded.
 * @typedef {object} PairSnapshot
 * @property {RunSnapshot[]} pair
 * @property {number[][]} ticks
 * @property {string[]} labels
 * @property {string[]} notes
 * @property {string} [diff]
 * @property {string} [arrange]
 * @property {{ms: number, hold?: number}} [autoplay]
 */

/** @typedef {RunSnapshot & Partial<PairSnapshot>} Snapshot what App reads: a run, or several with `pair` */

/**
 * A column of the page data (pagedata.schema.json `column`): exactly one of the value keys.
 * @typedef {object} Column
 * @property {(number | null)[]} [str]
 * @property {number[]} [int]
 * @property {(number | null)[]} [num]
 * @property {number} [scale]
 * @property {number[]} [strs]
 * @property {number[]} [ints]
 * @property {number[]} [n]
 * @property {any[]} [json]
 * @property {(string | null)[]} [text]
 * @property {string[]} [texts]
 * @property {Table} [table]
 * @property {number[]} [absent]
 */

/**
 * A table of the page data: `values` (col), `tuples` (cols as a list), `records` or `mapping` (cols by key, and
 * for a mapping its keys).
 * @typedef {{'@table': 'values' | 'tuples' | 'records' | 'mapping', rows: number, col?: Column,
 *            cols?: Column[] | Record<string, Column>, keys?: Column}} Table
 */

/**
 * The page data (pagedata.schema.json).
 * @typedef {object} PageData
 * @property {'planviz-page'} format
 * @property {number} version
 * @property {string[]} strings
 * @property {Record<string, any>} page
 */

export {};
