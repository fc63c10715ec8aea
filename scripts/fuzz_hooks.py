"""Schemathesis hooks of `deno task fuzz` (scripts/fuzz.ts loads this file through SCHEMATHESIS_HOOKS).

One hook: `filter_failure` drops two kinds of failure, and only these:
- ST202 "schema-valid request rejected" when every refusal in the answer is one of the rules listed in
  DATA_RULES below: rules that need the stored data (a column, a record, a job, a dataset's contents) or
  that JSON Schema cannot state. Each is a documented 4xx naming its field.
- ST201 "schema-violating request accepted" on the upload route when the violation is the body's type: a
  text upload (CSV, TSV, NDJSON) is its text, and whatever value the generator makes is sent as text.
Every other failure, and any refusal these rules do not match (a shape rule the OpenAPI document forgot),
fails the run. `deno task fuzz --strict` (FUZZ_STRICT=1) keeps every failure, to review the list.
"""

import json
import os
import re

import schemathesis
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.openapi.checks import RejectedPositiveData

# (operation label, status, message pattern): the refusals of a schema-valid request that are the documented
# answer. Grouped by why the OpenAPI document cannot rule them out; the message names the field (`loc`).
SPATIAL = r"POST /api/spatial-hitl/task/\{data_collection_name\}/(audit|mitigate/relabel|mitigate/threshold)"
DATA_RULES = [
    # --- what needs the stored data: a column, a record, a model, a distribution, a dataset's contents ---
    ("POST /annotations", 422, r"^no data model '"),
    ("POST /annotations", 422, r"^no column '.*' in (dataset '|the rows annotated)"),
    ("POST /annotations", 422, r"^annotation function '.*' is not enabled for dataset"),
    ("POST /(schema|data_model_info)", 422, r"^dataset '.*' has no distribution '"),
    ("POST /data_model_info", 422, r"^no data model '"),
    ("GET /api/datasets/\{database_name\}/\{collection_name\}", 422, r"^no document of '.*' has the field"),
    # an upload's content (CSV or NDJSON text): the document types the body as a string
    ("POST /api/datasets/\{database_name\}/\{collection_name\}", 400,
     r"^(the upload holds no rows|(line|item) \d+|a JSON upload must be an array)"),
    ("POST /api/datasets/\\{database_name\\}/\\{collection_name\\}", 422,
     r"^target '.*' is not a column of the imported rows"),
    ("POST /api/feature-importance/analyze", 422,
     r"^(target '|the dataset has no (columns|usable feature)|too few rows for \d+-fold)"),
    (SPATIAL, 422, r"^the task's collection holds no documents"),
    (SPATIAL, 422, r"^field '.*' \(mapped to \w+\) (is missing in|must be)"),
    (SPATIAL, 422, r"^(no individuals in scope|neither regions nor coordinates|region id .* is beyond the polygon)"),
    (SPATIAL, 422, r"^(y_pred_prob is required|y_pred_prob must be a number|equal_opp needs y_true)"),
    (SPATIAL, 422, r"^(flip_order .* needs y_pred_prob|region \d+ \(idx \d+\): δ = |train_ratio .* leaves the)"),
    ("POST /api/spatial-hitl/task/\{data_collection_name\}/mitigate/writeback", 422,
     r"^new_field '.*' is (a field a mapping of the task uses|held already)"),
    ("POST /run/", 400, r"^unknown dataset '"),
    ("POST /run/", 400, r"^(no column '|column '.*' (is |holds|does not hold)|'.*' is the date column)"),
    ("POST /run/", 400, r"^'.*' has no column this method can use"),
    ("POST /approve/", 400, r"^'.*' is (a column the job read|not a field name Tessera writes)"),
    # a refresh token is one this realm issued, for a user who still exists
    ("POST /realms/\{realm\}/protocol/openid-connect/token", 400,
     r"^(Invalid refresh token|User not found)"),
    # --- what JSON Schema cannot state: one field against another's value, uniqueness by a key ---
    (SPATIAL, 422, r'^rng "numpy" seeds world w with seed \+ w'),  # seed + n_worlds - 1 < 2^32
    ("POST /api/spatial-hitl/task/\{data_collection_name\}/mitigate/writeback", 422,
     r"^doc_id '.*' is listed twice"),  # uniqueItems covers equal lines, not two lines of one doc_id
    ("POST /run/", 400, r"^(low must be below high)$"),  # params.low < params.high
    # query parameters are separate schemas; the upload's format may come from its Content-Type
    ("POST /api/datasets/\{database_name\}/\{collection_name\}", 422,
     r"^(replace=\w+ contradicts mode=|a delimiter applies to CSV and TSV uploads)"),
]

STRICT = os.environ.get("FUZZ_STRICT") == "1"
# each dropped failure as a line `operation<TAB>status<TAB>rule` (scripts/fuzz.ts sums them up)
DROPPED = os.environ.get("FUZZ_DROPPED")


def _dropped(label, status, rule):
    if DROPPED:
        with open(DROPPED, "a", encoding="utf-8") as f:
            f.write(f"{label}\t{status}\t{rule}\n")
    return False
UPLOAD = "/api/datasets/{database_name}/{collection_name}"


def _messages(body):
    """The messages of a `{detail}` answer: each item's msg (422/400 lists) or the detail string."""
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, str):
        return [detail]
    if isinstance(detail, list):
        return [str(item.get("msg", "")) for item in detail if isinstance(item, dict)]
    if isinstance(body, dict) and "error_description" in body:
        return [str(body["error_description"])]
    return []


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """False (drop) for a failure described above; True (keep) for every other."""
    if STRICT:
        return True
    if isinstance(failure, AcceptedNegativeData):
        if (
            case.operation.label == "POST " + UPLOAD
            and not isinstance(case.body, (str, bytes))
            and "in body - violates `type`" in failure.message
        ):
            return _dropped(case.operation.label, response.status_code, "a text upload's body is text")
        return True
    if not isinstance(failure, RejectedPositiveData):
        return True
    try:
        messages = _messages(json.loads(response.content))
    except ValueError:
        return True
    label = case.operation.label
    rules = [r for r in DATA_RULES if re.fullmatch(r[0], label) and r[1] == response.status_code]
    if not messages or not rules:
        return True
    matched = [next((r for r in rules if re.search(r[2], m, re.S)), None) for m in messages]
    if any(r is None for r in matched):
        return True
    return _dropped(label, response.status_code, " + ".join(sorted({r[2] for r in matched})))
