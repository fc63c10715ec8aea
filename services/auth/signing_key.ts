/**
 * The local issuer's signing key, generated on first start and kept in the store so tokens survive a
 * restart and every instance sharing the store signs with the same key.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import type { SigningKey } from "../../core/auth/local_issuer.ts";
import type { Doc, Store } from "../../store/store.ts";

const ID = "signing-key";
const ALG = "ES256";

/** Where the key document lives: a reserved collection of Tessera's own database. */
export const keysRef = (db: string) => ({ db, collection: "_keys" });

/** Loads the signing key, creating it when the store has none. */
export async function loadOrCreateSigningKey(store: Store, db: string): Promise<SigningKey> {
  const ref = keysRef(db);
  const found = await store.get(ref, ID);
  if (found) return fromDoc(found);
  try {
    // insertMany, not put: both stores refuse a second document with this id (DuplicateIdError), so of
    // two instances starting together only one key wins; both then read the winner back.
    await store.insertMany(ref, [{ _id: ID, ...(await generate()), created_at: new Date().toISOString() }]);
  } catch (e) {
    if (!(await store.get(ref, ID))) throw e;
  }
  const stored = await store.get(ref, ID);
  if (!stored) throw new Error("the signing key was written but cannot be read back");
  return fromDoc(stored);
}

/** A fresh ES256 key pair as a private JWK, its key id the RFC 7638 thumbprint of the public half. */
async function generate(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({
    kty: privateJwk.kty,
    crv: privateJwk.crv,
    x: privateJwk.x,
    y: privateJwk.y,
  });
  return { kid, alg: ALG, privateJwk };
}

/** Reads a key document, refusing one that is not what this code writes. */
function fromDoc(doc: Doc): SigningKey {
  const jwk = doc.privateJwk as JWK | undefined;
  if (typeof doc.kid !== "string" || (doc.alg !== "ES256" && doc.alg !== "RS256") || !jwk?.d) {
    throw new Error(`the document ${ID} in _keys is not a signing key; delete it to generate a new one`);
  }
  return { kid: doc.kid, alg: doc.alg, privateJwk: jwk };
}
