/**
 * `pii_scan`: flags columns holding personal data: e-mail addresses, phone numbers, IBANs (ISO 13616
 * mod-97 checked), IP addresses (v4 and v6) anywhere in a text value, and personal names as whole values.
 * Each finding counts the values holding it and shows up to three examples, masked.
 */
import { z } from "zod";
import { ColumnsParam, isMissing, round4, type Table } from "./table.ts";
import { EMAIL_IN_TEXT } from "./patterns.ts";
import { GIVEN_NAMES } from "./given_names.ts";
import { nameTokens } from "./name_similarity.ts";

export const PII_KINDS = ["email", "phone", "iban", "ip_address", "person_name"] as const;
export type PiiKind = typeof PII_KINDS[number];

export const PiiScanParams = z.object({
  columns: ColumnsParam,
  kinds: z.array(z.enum(PII_KINDS)).min(1).default([...PII_KINDS]).describe("What to look for"),
  min_count: z.number().int().min(1).default(1).describe("Values that must hold a kind to report it"),
}).strict();
export type PiiScanParams = z.infer<typeof PiiScanParams>;

export interface Finding {
  kind: PiiKind;
  count: number;
  share: number;
  examples: string[];
}

export interface ColumnPii {
  column: string;
  present: number;
  pii: boolean;
  findings: Finding[];
}

const PHONE = /(?<![\w+])(?:\+|00)?\d[\d ()-]{6,18}\d(?![\w])/g;
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;
const IPV4 =
  /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d]|\.\d)/g;
const IPV6 = /(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])/g;
/** A capitalised name word: Maria, Anne-Marie, McDonald, O'Brien (each part starts upper case: no backtracking blow-up). */
const NAME_WORD = /^\p{Lu}\p{Ll}+(?:['’-]?\p{Lu}\p{Ll}+)*$|^\p{Lu}['’]\p{Lu}\p{Ll}+$/u;
/** Lower-case words inside names: Jan de Vries, Ludwig van Beethoven, Leonardo da Vinci. */
const PARTICLES = new Set([
  "de",
  "van",
  "der",
  "den",
  "von",
  "da",
  "di",
  "del",
  "della",
  "la",
  "le",
  "du",
  "dos",
]);
const PERSON_COLUMN = new Set(["name", "surname", "firstname", "lastname", "fullname", "person", "contact"]);

/** A phone number: 8 to 15 digits, written with + or 00, or with separators, or as a 0-led national number. */
function isPhone(s: string): boolean {
  const digits = s.replace(/\D/g, "");
  if (digits.length < 8 || digits.length > 15) return false;
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) return false; // a date
  return /^(?:\+|00)/.test(s) || /[ ()-]/.test(s) || (s.startsWith("0") && digits.length >= 10);
}

/** ISO 13616: move the first four characters to the end, letters to numbers (A = 10), remainder mod 97 is 1. */
export function isIban(s: string): boolean {
  const iban = s.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  let rest = 0;
  for (const ch of iban.slice(4) + iban.slice(0, 4)) {
    const code = ch >= "A" ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rest = (rest * (code >= 10 ? 100 : 10) + code) % 97;
  }
  return rest === 1;
}

const isIpv6 = (s: string) =>
  /[0-9a-f]/i.test(s) && s.split(":").length >= 3 && URL.canParse(`http://[${s}]/`);

const star = (s: string) => "*".repeat(s.length);

/** Masks: keeps the first letter of each part of an address, the last two digits of a phone, the country and last four of an IBAN, the first group of an IP, initials of a name. */
export const MASKS: Record<PiiKind, (s: string) => string> = {
  email: (s) => {
    const [local, domain] = [s.slice(0, s.lastIndexOf("@")), s.slice(s.lastIndexOf("@") + 1)];
    const dot = domain.lastIndexOf(".");
    const host = domain.slice(0, dot);
    return `${local[0]}${star(local.slice(1))}@${host[0]}${star(host.slice(1))}${domain.slice(dot)}`;
  },
  phone: (s) => {
    let keep = 2;
    return [...s].reverse().map((ch) => (/\d/.test(ch) ? (keep-- > 0 ? ch : "*") : ch)).reverse().join("");
  },
  iban: (s) => {
    const iban = s.replace(/ /g, "");
    return iban.slice(0, 2) + star(iban.slice(2, -4)) + iban.slice(-4);
  },
  ip_address: (s) => (s.includes(":") ? `${s.split(":")[0]}:*` : `${s.split(".")[0]}.*.*.*`),
  person_name: (s) => s.split(" ").map((w) => w[0] + star(w.slice(1))).join(" "),
};

/**
 * Every match of each requested kind in one value (person names only as the whole value). What an
 * address, IBAN or IP matched is blanked before phones are looked for, so their digits are not phones.
 */
function findIn(value: string, kinds: Set<PiiKind>, personColumn: boolean): Map<PiiKind, string[]> {
  const out = new Map<PiiKind, string[]>();
  let rest = value;
  const take = (kind: PiiKind, re: RegExp, keep: (s: string) => boolean = () => true) => {
    const hits = [...rest.matchAll(re)].map((m) => m[0]).filter(keep);
    for (const h of hits) rest = rest.replace(h, " ".repeat(h.length));
    if (kinds.has(kind) && hits.length) out.set(kind, [...(out.get(kind) ?? []), ...hits]);
  };
  take("email", EMAIL_IN_TEXT);
  take("iban", IBAN, isIban);
  take("ip_address", IPV4);
  take("ip_address", IPV6, isIpv6);
  take("phone", PHONE, (s) => isPhone(s.trim()));
  if (kinds.has("person_name") && isPersonName(value.trim(), personColumn)) {
    out.set("person_name", [value.trim()]);
  }
  return out;
}

/**
 * One to four capitalised words (particles such as `de` between them), under a person-like column name;
 * elsewhere at least two words, the first a common given name.
 */
function isPersonName(s: string, personColumn: boolean): boolean {
  const words = s.split(/\s+/);
  const inner = words.slice(1, -1);
  const named = [words[0], words[words.length - 1]].every((w) => NAME_WORD.test(w)) &&
    inner.every((w) => NAME_WORD.test(w) || PARTICLES.has(w));
  if (words.length > 4 || !named) return false;
  return personColumn || (words.length >= 2 && GIVEN_NAMES.has(words[0].toLowerCase()));
}

/** Scans every column of the table for personal data. */
export function piiScan(table: Table, p: PiiScanParams): { columns: ColumnPii[]; flagged: string[] } {
  const kinds = new Set(p.kinds);
  const columns = table.columns.map((col) => {
    const personColumn = nameTokens(col.name).some((t) => PERSON_COLUMN.has(t)) ||
      PERSON_COLUMN.has(nameTokens(col.name).join(""));
    const present = col.values.filter((v) => !isMissing(v));
    const counts = new Map<PiiKind, { count: number; examples: string[] }>();
    for (const v of present) {
      if (typeof v !== "string") continue;
      for (const [kind, hits] of findIn(v, kinds, personColumn)) {
        const e = counts.get(kind) ?? { count: 0, examples: [] };
        e.count++;
        for (const masked of hits.map(MASKS[kind])) {
          if (e.examples.length < 3 && !e.examples.includes(masked)) e.examples.push(masked);
        }
        counts.set(kind, e);
      }
    }
    const findings = PII_KINDS.filter((k) => (counts.get(k)?.count ?? 0) >= p.min_count).map((kind) => ({
      kind,
      count: counts.get(kind)!.count,
      share: round4(counts.get(kind)!.count / present.length),
      examples: counts.get(kind)!.examples,
    }));
    return { column: col.name, present: present.length, pii: findings.length > 0, findings };
  });
  return { columns, flagged: columns.filter((c) => c.pii).map((c) => c.column) };
}
