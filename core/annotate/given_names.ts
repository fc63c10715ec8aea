/**
 * Common given names across Europe (lower case), so a value such as "Maria Rossi" reads as a person's
 * name even when its column is not called name. A short list on purpose: it only has to recognise the
 * first word of typical names, and a column name saying "name" needs no list at all.
 */
const NAMES = [
  // English
  "james john robert michael william david richard joseph thomas charles mary patricia jennifer linda",
  "elizabeth susan jessica sarah karen emma oliver jack harry george olivia amelia isla ava emily sophie jane",
  // German, Dutch
  "hans peter klaus jürgen stefan andreas wolfgang anna ursula monika petra sabine lukas jan pieter daan",
  "sem femke lotte anke",
  // French
  "jean pierre michel philippe nicolas louis marie nathalie isabelle camille chloé léa manon",
  // Italian, Spanish, Portuguese
  "giuseppe giovanni marco luca francesco alessandro giulia francesca chiara maria josé antonio manuel",
  "carlos juan javier carmen lucía laura ana joão pedro beatriz inês",
  // Greek, Slavic, Nordic
  "georgios dimitrios konstantinos nikolaos eleni katerina sofia ivan piotr tomasz katarzyna agnieszka",
  "jana petr lars erik anders ingrid astrid",
];

export const GIVEN_NAMES: ReadonlySet<string> = new Set(NAMES.join(" ").split(" "));
