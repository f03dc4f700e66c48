"""The page: one self-contained HTML file with a hash-pinned Content-Security-Policy.

The policy allows nothing by default; the one inline style block and the one inline script are
allowed by their SHA-256 hashes, so markup that slipped into the page could neither load nor run
anything. Session transcripts travel as JSON in a non-executed script element (`<`, `>` and `&`
written as \\u escapes, so no transcript text can close it) and the drill-down writes them with
`textContent`, never as markup.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from html import escape
from typing import Any

import orjson

from ._arms import SECTION_ID as ARMS_ID
from ._arms import arms_section
from ._audit import AUDIT_ID, audit_section
from ._boundaries import SECTION_ID as BOUNDARIES_ID
from ._boundaries import boundaries_section
from ._compare import Comparison
from ._cost import SECTION_ID as COST_ID
from ._cost import cost_section
from ._data import ReportRun, all_sessions
from ._faults import SECTION_ID as FAULTS_ID
from ._faults import faults_section, has_faults
from ._metrics import SECTION_ID as METRICS_ID
from ._metrics import has_metrics, metrics_section
from ._noise import SECTION_ID as NOISE_ID
from ._noise import noise_section
from ._rerun import SECTION_ID as RERUN_ID
from ._rerun import rerun_section
from ._sections import comparison, failures, grid, headline, pattern_map, recovery, survival
from ._turns import has_turns, turns_section

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
nav a{color:#cfe3ff;margin-right:14px}main{padding:8px 24px;max-width:1200px}
.sec{background:#fff;border-radius:6px;padding:8px 18px 14px;margin:14px 0;
box-shadow:0 1px 2px #0002}h2{font-size:17px;margin:8px 0}h3{font-size:14px;margin:12px 0 4px}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #e3e6ea;
padding:3px 8px;text-align:left}th{background:#f0f2f5}.missing{color:#8a5a00;font-style:italic}
.plot{display:block;max-width:100%;height:auto}.ax{stroke:#333}.grid{stroke:#e3e6ea}
.tk{font-size:11px;fill:#333}.grid .row{display:flex;align-items:center;gap:2px}
.sid{width:260px;flex:none;overflow-wrap:anywhere;font-size:12px}
.c{display:inline-block;width:13px;height:13px;border-radius:2px}.pass{background:#2e9d57}
.fail{background:#d1452f}.infra{background:#888}.none{background:#ddd}
.row.flaky .sid{font-weight:600}
#drill .ev{display:grid;grid-template-columns:70px 60px 1fr;gap:6px;padding:2px 4px;
border-bottom:1px solid #eef0f2;white-space:pre-wrap;word-break:break-word;font-size:12px}
#drill .ev.div{background:#fff1c2;outline:2px solid #e0a800}.k{font-weight:600}
.k.fault,.k.error{color:#b3261e}.k.guard{color:#6a1b9a}.k.call{color:#0b5cad}
div.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;max-width:560px;
margin:2px 0 8px 44px}.li{display:inline-flex;align-items:center;gap:5px;overflow-wrap:anywhere}
table.headline td,table.arms td,table.paired td{white-space:pre}
table.headline td:nth-child(3),table.arms td:first-child,table.paired td:first-child{
white-space:pre-line;overflow-wrap:break-word;min-width:8em}p.def{font-size:12px;color:#555}
.unjudged{background:repeating-linear-gradient(45deg,#ddd 0 3px,#999 3px 5px)}
#drill table{margin:4px 0 8px}#drill td{vertical-align:top;white-space:pre-wrap;
word-break:break-word}.v-fail{color:#b3261e;font-weight:600}.v-pass{color:#1e7b43}
.v-not-evaluated{color:#8a5a00}table.mm{font-size:12px;margin-top:4px}
"""

JS = """
(function(){
var data=JSON.parse(document.getElementById('sessions').textContent);
var byKey={};data.forEach(function(s){byKey[s.key]=s;});
var drill=document.getElementById('drill');
var WORDS={infra:'infra error: not judged',unjudged:'not judged',none:'no outcome: not judged'};
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
if(text!==undefined)e.textContent=String(text);return e;}
function row(cells,tag){var tr=el('tr');cells.forEach(function(c){
tr.appendChild(c instanceof Node?c:el(tag||'td','',c));});return tr;}
function table(head,rows,cls){var t=el('table',cls);t.appendChild(row(head,'th'));
rows.forEach(function(r){t.appendChild(row(r));});return t;}
function val(v){return v===null||v===undefined?'–':(typeof v==='string'?v:JSON.stringify(v));}
function criteria(s){if(!s.criteria||!s.criteria.length)return;
drill.appendChild(el('h4','','criteria'));
var t=table(['criterion','verdict','evidence'],[],'crit');
s.criteria.forEach(function(c){var v=c[1]===null?'not evaluated':(c[1]?'pass':'fail');
var cell=el('td');cell.appendChild(el('div','',c[2]||''));
if(c[3].length){cell.appendChild(table(['where','expected','actual'],
c[3].map(function(d){return [d[0],val(d[1]),d[3]?'missing':val(d[2])];}),'mm'));}
t.appendChild(row([c[0],el('td','v v-'+v.replace(' ','-'),v),cell]));});
drill.appendChild(t);}
function calls(s){if(!s.calls)return;drill.appendChild(el('h4','','expected vs actual calls'));
drill.appendChild(table(['#','expected','actual','difference'],s.calls.map(function(c,i){
return [String(i+1),c[0]||'–',c[1]||'–',c[2]||''];}),'calls'));}
function show(key){var s=byKey[key];if(!s)return false;drill.replaceChildren();
var h=el('h3','',s.run+' · '+s.scenario+' · trial '+s.trial+' · '+s.arm+' · '+
(WORDS[s.verdict]||s.verdict)+' · '+s.termination);h.id='drill-title';drill.appendChild(h);
if(s.not_judged){drill.appendChild(el('p','missing','not judged: '+s.not_judged));}
if(s.divergence){drill.appendChild(el('p','missing','first divergence at step '+
s.divergence.step+': '+s.divergence.kind+' — '+s.divergence.detail));}
criteria(s);calls(s);drill.appendChild(el('h4','','transcript'));
s.events.forEach(function(r){var row=el('div','ev');
if(s.divergence&&r[2]===s.divergence.step&&r[0]==='call')row.className='ev div';
row.appendChild(el('span','k '+r[0],r[0]));row.appendChild(el('span','', 't'+r[3]+' s'+r[2]));
row.appendChild(el('span','',r[1]));drill.appendChild(row);});
document.getElementById('session').scrollIntoView();return true;}
function fromHash(){var h=location.hash.slice(1);if(!h)return;
try{h=decodeURIComponent(h);}catch(e){return;}show(h);}
document.addEventListener('click',function(ev){var t=ev.target;
var a=t&&t.closest?t.closest('#grid a.c'):null;if(!a)return;var h=a.getAttribute('href');
var k;try{k=decodeURIComponent(h.slice(1));}catch(e){return;}
ev.preventDefault();if(show(k)){history.replaceState(null,'',h);}});
window.addEventListener('hashchange',fromHash);fromHash();
})();
"""


def _sha(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


CSP = (
    f"default-src 'none'; style-src '{_sha(CSS)}'; script-src '{_sha(JS)}'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
"""No network, no plugins, no inline code but the page's own (pinned by hash)."""


def _json_for_script(value: Any) -> str:
    try:
        # orjson: the drill-down data of 600 sessions in a fifth of json's time.
        text = orjson.dumps(value).decode()
    except TypeError:  # a lone surrogate (or a value orjson refuses): the standard encoder
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _audited(run: ReportRun) -> str:
    return "" if run.audit is None else audit_section(run.audit)


def render_html(
    runs: Sequence[ReportRun], compared: Comparison | None = None, title: str = ""
) -> str:
    """The whole report page for `runs` (and their paired comparison, given two or more)."""
    name = title or "sessionproof report: " + ", ".join(r.run_id for r in runs)
    # One list: each section with its table-of-contents entry (None: not listed), so a
    # section and its link cannot drift apart.
    multi_arm = any(len(r.arms) > 1 for r in runs)
    parts: list[tuple[str, str | None, str]] = [
        ("headline", "headline", headline(runs)),
        (ARMS_ID, "arms" if multi_arm else None, arms_section(runs)),
        (
            RERUN_ID,
            "rerun" if any(r.command == "rerun" for r in runs) else None,
            rerun_section(runs),
        ),
        ("turns", "per turn" if has_turns(runs) else None, turns_section(runs)),
        ("survival", "survival", survival(runs)),
        ("recovery", "recovery", recovery(runs)),
        (FAULTS_ID, "faults" if has_faults(runs) else None, faults_section(runs)),
        (BOUNDARIES_ID, "fault boundaries" if (b := boundaries_section(runs)) else None, b),
        ("failures", "failures", failures(runs)),
        (METRICS_ID, "metrics" if has_metrics(runs) else None, metrics_section(runs)),
        (NOISE_ID, "noise", noise_section(runs)),
        (COST_ID, "cost" if any(r.costs for r in runs) else None, cost_section(runs)),
        ("patterns", "patterns", pattern_map(runs)),
        ("grid", "verdicts", grid(runs)),
        (AUDIT_ID, "audit" if runs[0].audit else None, _audited(runs[0])),
        ("comparison", None, comparison(compared) if len(runs) > 1 else ""),
        ("session", "session", ""),  # the drill-down, written after the sections
    ]
    sections = [body for _, _, body in parts]
    toc = "".join(f'<a href="#{sid}">{label}</a>' for sid, label, _ in parts if label)
    notes = "".join(f'<p class="missing">{escape(n)}</p>' for r in runs for n in r.notes)
    drill = (
        '<section id="session" class="sec"><h2>Session</h2><div id="drill">'
        '<p class="missing">click a cell of the verdict grid to open its session</p>'
        "</div></section>"
    )
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(name)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>{escape(name)}</h1><nav>{toc}</nav></header><main>{notes}"
        + "".join(sections)
        + drill
        + f'</main><script type="application/json" id="sessions">'
        f"{_json_for_script(all_sessions(runs))}</script><script>{JS}</script></body></html>"
    )
