"""The HTML report: one self-contained page (inline CSS, SVG and script; a strict CSP).

`render_html(runs)` takes typed runs (`ReportRun`: metrics per arm, sessions, patterns) and
returns the page; `compare_sessions` pairs two runs' sessions for the comparison section and
`sessionproof compare`.
"""

__all__: list[str] = []
