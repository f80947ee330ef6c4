/** The page's style sheet, inlined into every page (no network). */
export const PAGE_STYLE = `
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2127; background: #fafbfc; }
body { margin: 0; }
#app { padding: 12px 20px 40px; max-width: 1500px; margin: 0 auto; }
header { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; border-bottom: 1px solid #dde1e6; padding-bottom: 8px; margin-bottom: 12px; }
header h1 { font-size: 18px; margin: 0; }
nav button, .episode-nav button, .filters button, .note button { border: 1px solid #c6ccd3; background: #fff; border-radius: 5px; padding: 4px 10px; cursor: pointer; margin-right: 4px; }
nav button.active { background: #1f6feb; color: #fff; border-color: #1f6feb; }
h2 { font-size: 18px; } h3 { font-size: 15px; margin: 18px 0 6px; } h4 { font-size: 13px; margin: 10px 0 4px; }
.muted { color: #6a737d; font-weight: normal; } .path { font-size: 12px; word-break: break-all; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; }
.card { background: #fff; border: 1px solid #dde1e6; border-radius: 8px; padding: 8px 12px; min-width: 150px; }
.card-label { font-size: 12px; color: #6a737d; } .card-value { font-size: 22px; font-weight: 600; } .card-sub { font-size: 11px; color: #6a737d; }
.two { display: flex; gap: 24px; flex-wrap: wrap; align-items: flex-start; }
.plot { margin: 12px 0; } .plot figcaption { font-size: 11px; color: #6a737d; }
.legend { font-size: 12px; } .legend-item { margin-right: 12px; } .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
table { border-collapse: collapse; font-size: 13px; background: #fff; }
th, td { border: 1px solid #e3e6ea; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f5f7; }
tr.clickable { cursor: pointer; } tr.clickable:hover { background: #eef4ff; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 8px 0; font-size: 13px; }
.filters input[type=search] { min-width: 240px; padding: 3px 6px; }
.grid { display: flex; flex-direction: column; gap: 2px; max-height: 420px; overflow: auto; border: 1px solid #e3e6ea; padding: 6px; background: #fff; }
.grid-row { display: flex; gap: 2px; align-items: center; }
.grid-task { width: 220px; font-size: 11px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.cell { width: 18px; height: 18px; border: 0; border-radius: 3px; padding: 0; cursor: pointer; display: inline-block; margin-right: 2px; }
.cell.faded { opacity: 0.15; } .cell.empty { background: transparent; border: 1px dashed #ccc; cursor: default; }
.cell-head { width: 18px; font-size: 10px; text-align: center; margin-right: 2px; }
.reward { color: #fff; border-radius: 4px; padding: 1px 6px; font-size: 12px; }
.episode-grid { display: grid; grid-template-columns: minmax(240px, 1fr) minmax(360px, 2fr) minmax(260px, 1fr); gap: 16px; align-items: start; }
.task, .side { background: #fff; border: 1px solid #e3e6ea; border-radius: 8px; padding: 8px 12px; font-size: 13px; overflow-wrap: anywhere; }
.task li.unmet { color: #b02a37; } .task li.met { color: #1e7b3a; }
.message { border: 1px solid #e3e6ea; border-radius: 8px; padding: 6px 10px; margin-bottom: 8px; background: #fff; font-size: 13px; }
.message.user { background: #f1f7ff; } .message.assistant { background: #fff; } .message.tool { background: #f7f7f2; } .message.system { background: #f3f3f3; }
.message.error { border-color: #d64541; }
.message-head { font-size: 12px; margin-bottom: 4px; } .message-head .index { color: #6a737d; margin-right: 6px; }
.content { white-space: pre-wrap; }
.tool-call { margin-top: 4px; font-size: 12px; } .tool-call code { background: #eef1f4; padding: 1px 4px; border-radius: 3px; word-break: break-all; }
pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; margin: 4px 0; }
.badge { display: inline-block; font-size: 11px; border-radius: 10px; padding: 0 7px; margin-left: 6px; background: #e9ecef; }
.badge.user-side { background: #d0ebff; } .badge.bridge { background: #e5dbff; } .badge.harness { background: #ffe8cc; } .badge.dry-run { background: #fff3bf; } .badge.error { background: #ffc9c9; }
.pin { margin-top: 4px; font-size: 12px; padding: 2px 6px; border-left: 3px solid #d64541; background: #fff5f5; }
.pin.policy { border-color: #f08c00; background: #fff9db; }
.error-text { color: #b02a37; }
.minus { color: #b02a37; } .plus { color: #8a5a00; } .same { color: #1e7b3a; }
.note textarea { width: 100%; box-sizing: border-box; margin: 6px 0; }
.note label { font-size: 12px; }
.compare-tasks tr.differs { background: #fff4e6; }
.verdict.better { color: #1e7b3a; font-weight: 600; } .verdict.worse { color: #b02a37; font-weight: 600; }
.episode-nav { display: flex; gap: 8px; align-items: center; }
.grid.virtual { display: block; } .grid.virtual .grid-row { height: 20px; margin: 0; }
.grid.virtual .grid-head { position: sticky; top: -6px; background: #fff; z-index: 1; }
.episodes-scroll.virtual { max-height: 600px; overflow: auto; border: 1px solid #e3e6ea; }
.episodes-scroll.virtual thead th { position: sticky; top: 0; z-index: 1; }
.episodes-scroll.virtual tbody tr:not(.spacer) td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 360px; height: 26px; padding-top: 2px; padding-bottom: 2px; box-sizing: border-box; }
tr.spacer td, tr.spacer { border: 0; padding: 0; }
`;
