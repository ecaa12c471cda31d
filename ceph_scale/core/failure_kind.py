"""What kind of failure an error line says, so that a failure is logged once per change of kind.

A source's error text carries what changes on every attempt: RGW answers each refused
request with a new RequestId and HostId, a timeout names its seconds, a body cut at a fixed
length ends mid-word. Logging on every change of that text is one line per poll. The kind
keeps what tells one failure from another (the exception type, the HTTP status and the
S3 error code, an errno) and drops the rest; the full text is still what the status shows.
"""

from __future__ import annotations

import re

HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")
# The S3 error code of a JSON or XML error body: {"Code":"AccessDenied",...} / <Code>AccessDenied</Code>.
S3_CODE = re.compile(r"""["']?Code["']?\s*[:=]\s*["']([A-Za-z]+)["']|<Code>([A-Za-z]+)</Code>""")
# Error numbers say which failure it is: "failed (-110)", "[Errno 111]", "error 13".
ERRNO = re.compile(r"\((-?\d{1,4})\)|\[Errno (\d{1,4})\]")
# Any word with a digit in it is an id, a count, a duration or an address: it varies within one kind.
VARYING_WORD = re.compile(r"[\w.:/+-]*\d[\w.:/+-]*")


def failure_kind(error: str) -> str:
    """The kind of `error` ("Type: message"), equal for two errors that differ only in ids,
    numbers and where their body was cut."""
    if not error:
        return ""
    http = HTTP_STATUS.search(error)
    if http:
        # The text after the status is the server's body: only its error code is kept.
        before = error[: http.start()]
        code = S3_CODE.search(error, http.end())
        said = (code.group(1) or code.group(2)) if code else ""
        return f"{_normalised(before)} HTTP {http.group(1)} {said}".rstrip()
    codes = ",".join(a or b for a, b in ERRNO.findall(error))
    return _normalised(error) + (f" [{codes}]" if codes else "")


def _normalised(text: str) -> str:
    return " ".join(VARYING_WORD.sub("#", text).split())
