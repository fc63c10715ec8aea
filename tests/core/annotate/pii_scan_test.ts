/** pii_scan on values holding known personal data (and look-alikes that are not). */
import assert from "node:assert/strict";
import { isIban, MASKS, piiScan, PiiScanParams } from "../../../core/annotate/pii_scan.ts";
import { toTable } from "../../../core/annotate/table.ts";

const scan = (rows: Record<string, unknown>[], params = {}) =>
  piiScan(toTable(rows), PiiScanParams.parse(params));

Deno.test("pii_scan: IBAN check digits (ISO 13616 mod 97)", () => {
  // the standard examples, and the same with the last digit changed
  assert.equal(isIban("GB82 WEST 1234 5698 7654 32"), true);
  assert.equal(isIban("DE89370400440532013000"), true);
  assert.equal(isIban("GB82 WEST 1234 5698 7654 33"), false);
  assert.equal(isIban("DE89370400440532013001"), false);
});

Deno.test("pii_scan: finds addresses, phones, IBANs and IPs inside text, masked", () => {
  const texts = [
    "mail me at jane.doe@example.com or +44 20 7946 0958",
    "IBAN DE89 3704 0044 0532 0130 00 please",
    "server 192.168.1.23 down",
    "v6 2001:db8::1 seen",
    "nothing here 12345678", // 8 digits, no + or separators: not a phone
    "account DE89370400440532013001", // bad check digits: not an IBAN
    "2024-01-31 meeting at 10:30:00", // a date and a time: neither a phone nor an IPv6
    null,
  ];
  const { columns, flagged } = scan(texts.map((contact) => ({ contact, amount: 12345678 })));
  assert.deepEqual(flagged, ["contact"]);
  assert.equal(columns[0].present, 7);
  assert.deepEqual(columns[0].findings, [
    { kind: "email", count: 1, share: 0.1429, examples: ["j*******@e******.com"] },
    { kind: "phone", count: 1, share: 0.1429, examples: ["+** ** **** **58"] },
    { kind: "iban", count: 1, share: 0.1429, examples: ["DE****************3000"] },
    { kind: "ip_address", count: 2, share: 0.2857, examples: ["192.*.*.*", "2001:*"] },
  ]);
  // numbers are never scanned
  assert.deepEqual(columns[1], { column: "amount", present: 8, pii: false, findings: [] });
});

Deno.test("pii_scan: personal names under a name-like column, or led by a common given name", () => {
  const rows = [
    { full_name: "Maria Rossi", organiser: "Anna Schmidt" },
    { full_name: "Jan de Vries", organiser: "Rose Garden Ltd" },
    { full_name: "acme corp", organiser: "Paris" },
    { full_name: "O'Brien", organiser: null },
  ];
  const { columns } = scan(rows);
  // full_name: 3 of 4 (lower-case "acme corp" is no name); organiser: only "Anna Schmidt" (1 of 3)
  assert.deepEqual(columns[0].findings, [
    { kind: "person_name", count: 3, share: 0.75, examples: ["M**** R****", "J** d* V****", "O******"] },
  ]);
  assert.deepEqual(columns[1].findings, [
    { kind: "person_name", count: 1, share: 0.3333, examples: ["A*** S******"] },
  ]);
});

Deno.test("pii_scan: kinds and min_count narrow what is reported", () => {
  const rows = [{ c: "a@b.co" }, { c: "x" }];
  assert.deepEqual(scan(rows, { kinds: ["phone"] }).flagged, []);
  assert.deepEqual(scan(rows, { min_count: 2 }).flagged, []);
  assert.equal(scan(rows).columns[0].findings[0].examples[0], "a@b.co");
  assert.equal(MASKS.phone("0612 345 678"), "**** *** *78");
});
