/**
 * Models as human-readable files under `<svc.persistence-dir>/models/<id>/`
 * (the id percent-encoded, fs_files.ts):
 *
 * - `model.json`: `{id, spec, base, baseSha256, baseAt, logStart, jobs, jobsAfter}`,
 *   the spec, the state the log starts from (and its checksum) and the outbox as
 *   of journal line `jobsAfter`; replaced only by an atomic rename (create,
 *   evolve, restore, compaction).
 * - `journal.ndjson`: one JSON line per durable change,
 *   `{seq, entry?, audit?, jobs?}` (a commit's log entry, audit record and outbox
 *   changes together, so one append is one atomic commit), flushed with
 *   fdatasync before the write is acknowledged. Lines are never rewritten: the
 *   journal is also the audit trail. A torn last line (a crash mid-append, never
 *   acknowledged) is cut off at the next start.
 *
 * Loading replays the entries from `logStart` on (each only if the audit record
 * on its line agrees with it), and folds the outbox changes
 * after `jobsAfter` into `jobs`; compaction rewrites `model.json` with a later
 * base every `svc.storage.compaction-threshold` entries. A deleted model's
 * directory is renamed away atomically and removed in the background (or at
 * the next start). One process owns a directory.
 *
 * @module
 */
import { type AuditRecord, loggedWriteDisagreement } from "../../engine/audit/chain.ts";
import { type EffectJob, isEffectJob, type JobChanges } from "../../engine/effects/job.ts";
import { filterAudit } from "../../engine/service/audit_query.ts";
import { foldPoint } from "../../engine/service/compaction.ts";
import { type MemoryAuditTrail, summarizeRecovery } from "../../engine/service/memory.ts";
import type {
  AuditQuery,
  CommitStates,
  LoadedModel,
  LogEntry,
  ModelStore,
  PersistedState,
  RecoveryRecord,
  RecoverySummary,
} from "../../engine/service/ports.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { type DirectoryLock, lockDirectory } from "./dir_lock.ts";
import type { DiskFull } from "./disk_full.ts";
import { appendDurable, exists, isTemporary, nameOf, syncDir, writeFileAtomic } from "./fs_files.ts";
import { isLogEntry, isPersistedState } from "./stored_model.ts";
import { serverHasher } from "../platform.ts";
import { describeKey, failureAbout } from "../config_failure.ts";

/** What a filesystem model store keeps besides specs. */
export interface FsModelStoreOptions {
  /** Whether state (base and log) is kept; otherwise models restart from their initial state. */
  state: boolean;
  /** Where audit records go: the journal, a memory trail, or nowhere (`null`). */
  audit: "filesystem" | MemoryAuditTrail | null;
  /** Log entries folded per compaction. */
  compactionThreshold: number;
  warn(message: string): void;
  /** Whether writes are refused for a full disk (shared with the blob store on the same disk). */
  disk: DiskFull;
}

/** The contents of `model.json`. */
interface ModelFile {
  id: string;
  spec: ModelSpec;
  base: PersistedState | null;
  baseAt: number | null;
  /** SHA-256 (hex) of `base` as `JSON.stringify` writes it; absent in files written before it was kept. */
  baseSha256?: string | null;
  /** Journal line of the first log entry after `base`. */
  logStart: number;
  /** The outbox as of journal line `jobsAfter`. */
  jobs: EffectJob[];
  jobsAfter: number;
}

/** One journal line. */
interface JournalLine {
  seq: number;
  entry?: LogEntry;
  audit?: AuditRecord;
  jobs?: JobChanges;
}

/** An open model. */
interface OpenModel {
  dir: string;
  file: ModelFile;
  journal: Deno.FsFile;
  nextSeq: number;
  /** Journal lines holding the log entries after the base. */
  logSeqs: number[];
  jobs: Map<string, EffectJob>;
  lastAudit: AuditRecord | null;
}

const MODEL_FILE = "model.json";
const JOURNAL = "journal.ndjson";
const DELETED = ".deleted-";

function isModelFile(value: unknown): value is ModelFile {
  const f = value as ModelFile;
  return f !== null && typeof f === "object" && typeof f.id === "string" && typeof f.spec === "object" &&
    f.spec !== null && Number.isInteger(f.logStart) && Array.isArray(f.jobs) && Number.isInteger(f.jobsAfter);
}

function isAuditRecord(value: unknown): value is AuditRecord {
  const record = value as AuditRecord;
  return record !== null && typeof record === "object" && Number.isInteger(record.sequence) &&
    typeof record.hash === "string";
}

/** The checksum of a base state: SHA-256 of its JSON (parsing and writing it again gives the same text). */
function baseSha256(base: PersistedState): Promise<string> {
  return serverHasher.sha256Hex(new TextEncoder().encode(JSON.stringify(base)));
}

function applyJobs(jobs: Map<string, EffectJob>, changes: JobChanges | undefined): void {
  for (const job of changes?.put ?? []) jobs.set(job.id, job);
  // An update of a job no longer in the outbox is dropped: it was settled.
  for (const job of changes?.update ?? []) if (jobs.has(job.id)) jobs.set(job.id, job);
  for (const id of changes?.remove ?? []) jobs.delete(id);
}

/** The journal's lines; a torn last line is cut off the file (it was never acknowledged). */
async function readJournal(path: string, warn: (message: string) => void): Promise<(JournalLine | null)[]> {
  const bytes = await Deno.readFile(path);
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end < bytes.byteLength) {
    warn(`${path}: an unfinished last line (${bytes.byteLength - end} bytes) was cut off`);
    await Deno.truncate(path, end);
  }
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  return text.split("\n").slice(0, -1).map((line) => {
    try {
      const value = JSON.parse(line) as JournalLine;
      return value && Number.isInteger(value.seq) ? value : null;
    } catch {
      return null;
    }
  });
}

/** The recovery records in a directory, oldest first. */
async function readRecovery(dir: string): Promise<RecoveryRecord[]> {
  if (!(await exists(dir))) return [];
  const records: RecoveryRecord[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!isTemporary(entry.name)) records.push(JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}`)));
  }
  return records.sort((a, b) => a.detectedAt.localeCompare(b.detectedAt));
}

/** The filesystem model store. */
export class FsModelStore implements ModelStore {
  readonly description: string;
  readonly #root: string;
  readonly #options: FsModelStoreOptions;
  readonly #models = new Map<string, OpenModel>();
  readonly #sweeps = new Set<Promise<void>>();
  /** The data directory's lock, held from open to close. */
  #lock: DirectoryLock | null = null;

  private constructor(dir: string, options: FsModelStoreOptions) {
    this.#root = `${dir.replace(/\/+$/, "") || "."}/models`;
    this.#options = options;
    this.description = `filesystem (${dir})`;
  }

  /** Opens (creating) `<dir>/models`. */
  static async open(dir: string, options: FsModelStoreOptions): Promise<FsModelStore> {
    const store = new FsModelStore(dir, options);
    const setting = describeKey("svc.persistence-dir", dir);
    try {
      await Deno.mkdir(store.#root, { recursive: true });
    } catch (err) {
      throw new Error(`Configuration ${setting}: ${failureAbout(String(err), dir)}`);
    }
    store.#lock = await lockDirectory(dir, setting);
    return store;
  }

  async load(): Promise<LoadedModel[]> {
    const loaded: LoadedModel[] = [];
    for await (const entry of Deno.readDir(this.#root)) {
      const dir = `${this.#root}/${entry.name}`;
      if (entry.name.startsWith(DELETED)) await Deno.remove(dir, { recursive: true });
      else if (entry.isDirectory) {
        const model = await this.#loadOne(dir);
        if (model) loaded.push(model);
      }
    }
    return loaded;
  }

  async #loadOne(dir: string): Promise<LoadedModel | null> {
    if (!(await exists(`${dir}/${MODEL_FILE}`))) {
      // A creation that never completed has written nothing to its journal; a journal without its model
      // file is damage, kept for an operator (a create of its id later discards it).
      const journal = await Deno.stat(`${dir}/${JOURNAL}`).then((info) => info.size, () => 0);
      if (journal === 0) await Deno.remove(dir, { recursive: true });
      else {
        this.#options.warn(
          `RECOVERY NEEDED: ${dir} holds a journal of ${journal} bytes but no ${MODEL_FILE}: not loaded, kept as it is`,
        );
      }
      return null;
    }
    for await (const entry of Deno.readDir(dir)) {
      if (isTemporary(entry.name)) await Deno.remove(`${dir}/${entry.name}`);
    }
    let file: unknown;
    try {
      file = JSON.parse(await Deno.readTextFile(`${dir}/${MODEL_FILE}`));
    } catch {
      // reported below
    }
    if (!isModelFile(file)) {
      this.#options.warn(`model in ${dir} not loaded: its ${MODEL_FILE} is unreadable`);
      return null;
    }
    const lines = await readJournal(`${dir}/${JOURNAL}`, this.#options.warn).catch(() => []);
    const open: OpenModel = {
      dir,
      file,
      journal: await Deno.open(`${dir}/${JOURNAL}`, { create: true, append: true }),
      nextSeq: 0,
      logSeqs: [],
      jobs: new Map(file.jobs.filter(isEffectJob).map((job) => [job.id, job])),
      lastAudit: null,
    };
    this.#models.set(file.id, open);
    const log: LogEntry[] = [];
    let problem: string | null = null;
    let auditSequence: number | undefined;
    for (const line of lines) {
      const seq = line?.seq ?? open.nextSeq;
      if (!line || seq !== open.nextSeq) {
        if (seq >= file.logStart) problem ??= `journal line ${open.nextSeq} is unreadable or missing`;
        if (!line) {
          open.nextSeq++;
          continue;
        }
      }
      open.nextSeq = seq + 1;
      if (isAuditRecord(line.audit)) open.lastAudit = line.audit;
      if (seq > file.jobsAfter) applyJobs(open.jobs, line.jobs);
      if (seq < file.logStart || line.entry === undefined) continue;
      if (!isLogEntry(line.entry)) problem ??= `log entry at journal line ${seq} is unreadable`;
      else {
        log.push(line.entry);
        // A line holding both: the entry replays only if its audit record vouches for it.
        const disagreement = "audit" in line ? loggedWriteDisagreement(line.entry, line.audit) : null;
        if (disagreement && problem === null) {
          problem = `log entry at journal line ${seq}: ${disagreement}`;
          if (isAuditRecord(line.audit)) auditSequence = line.audit.sequence;
        }
      }
      open.logSeqs.push(seq);
    }
    const jobs = [...open.jobs.values()].filter((job) => job.modelId === file.id);
    if (!this.#options.state) return { spec: file.spec, base: null, log: [] };
    const base = isPersistedState(file.base) ? file.base : null;
    if (!base) problem ??= "no state is stored";
    // Like KV's chunks: a base that does not match its SHA-256 is damage (a file written before the
    // checksum was kept has none, and loads as it did).
    else if (typeof file.baseSha256 === "string" && await baseSha256(base) !== file.baseSha256) {
      problem ??= `its base state does not match its SHA-256 (${MODEL_FILE} was altered)`;
    }
    // On a problem, what could be read still goes back: the service keeps it for recovery, never replays it.
    const model = { spec: file.spec, base, baseAt: file.baseAt, log, jobs };
    return problem ? { ...model, problem, ...auditSequence !== undefined && { auditSequence } } : model;
  }

  save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    return this.#options.disk.write(() => this.#save(spec, state, options));
  }

  async #save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges },
  ): Promise<void> {
    const id = spec.id;
    let open = this.#models.get(id);
    if (options.created || !open) {
      const dir = `${this.#root}/${await nameOf(id)}`;
      // Leftovers under this id belong to no live model.
      if (open || await exists(dir)) await this.#discard(id, dir);
      await Deno.mkdir(dir);
      open = {
        dir,
        file: { id, spec, base: null, baseAt: null, logStart: 0, jobs: [], jobsAfter: -1 },
        journal: await Deno.open(`${dir}/${JOURNAL}`, { create: true, append: true }),
        nextSeq: 0,
        logSeqs: [],
        jobs: new Map(),
        lastAudit: null,
      };
      this.#models.set(id, open);
    }
    if (this.#options.state) applyJobs(open.jobs, options.jobs);
    await this.#writeModel(open, {
      ...open.file,
      spec,
      base: this.#options.state ? state : null,
      baseAt: null,
      logStart: open.nextSeq,
    });
    open.logSeqs = [];
  }

  /** Rewrites `model.json` (atomically) with the current outbox. */
  async #writeModel(open: OpenModel, file: ModelFile): Promise<void> {
    const next: ModelFile = {
      ...file,
      baseSha256: file.base ? await baseSha256(file.base) : null,
      jobs: [...open.jobs.values()],
      jobsAfter: open.nextSeq - 1,
    };
    await writeFileAtomic(`${open.dir}/${MODEL_FILE}`, JSON.stringify(next, null, 2) + "\n");
    open.file = next;
  }

  commit(...args: Parameters<ModelStore["commit"]>): Promise<void> {
    return this.#options.disk.write(() => this.#commit(...args));
  }

  async #commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    const open = this.#open(modelId);
    const trail = this.#options.audit;
    const line: JournalLine = { seq: open.nextSeq };
    if (this.#options.state) line.entry = entry;
    if (audit && trail === "filesystem") line.audit = audit;
    if (this.#options.state && (jobs?.put?.length || jobs?.update?.length || jobs?.remove?.length)) {
      line.jobs = jobs;
    }
    if (line.entry || line.audit || line.jobs) await this.#append(open, line);
    if (audit && trail && trail !== "filesystem") trail.append(audit);
    if (line.entry) await this.#compact(open, states);
  }

  async #append(open: OpenModel, line: JournalLine): Promise<void> {
    await appendDurable(open.journal, JSON.stringify(line) + "\n");
    open.nextSeq++;
    if (line.entry) open.logSeqs.push(line.seq);
    if (line.audit) open.lastAudit = line.audit;
    applyJobs(open.jobs, line.jobs);
  }

  #open(modelId: string): OpenModel {
    const open = this.#models.get(modelId);
    if (!open) throw new Error(`model '${modelId}' is not in the filesystem store`);
    return open;
  }

  /** Folds the log into the checkpoint once `compactionThreshold` entries can be folded. */
  async #compact(open: OpenModel, states: CommitStates): Promise<void> {
    const fold = foldPoint(open.logSeqs.length, this.#options.compactionThreshold, states);
    if (!fold) return;
    const { point, folded } = fold;
    try {
      await this.#writeModel(open, {
        ...open.file,
        base: point.state(),
        baseAt: point.at,
        logStart: open.logSeqs[folded] ?? open.nextSeq,
      });
      open.logSeqs = open.logSeqs.slice(folded);
    } catch (err) {
      // The commit itself is durable; a longer log is only slower to load.
      this.#options.warn(
        `model '${open.file.id}': log compaction failed, retried at the next commit: ${
          (err as Error).message
        }`,
      );
    }
  }

  async updateJobs(modelId: string, changes: JobChanges): Promise<void> {
    const open = this.#models.get(modelId);
    if (!open || !this.#options.state) return;
    await this.#options.disk.write(() => this.#append(open, { seq: open.nextSeq, jobs: changes }));
  }

  async delete(modelId: string): Promise<void> {
    const open = this.#models.get(modelId);
    const trail = this.#options.audit;
    if (trail && trail !== "filesystem") trail.delete(modelId);
    if (open) await this.#discard(modelId, open.dir);
  }

  /** Renames a model's directory away (atomic: the model is gone) and removes it in the background. */
  async #discard(modelId: string, dir: string): Promise<void> {
    this.#models.get(modelId)?.journal.close();
    this.#models.delete(modelId);
    const trash = `${this.#root}/${DELETED}${crypto.randomUUID()}`;
    await Deno.rename(dir, trash);
    await syncDir(this.#root);
    const sweep = Deno.remove(trash, { recursive: true }).catch((err) =>
      this.#options.warn(`removing ${trash} failed, retried at the next start: ${err}`)
    ).finally(() => this.#sweeps.delete(sweep));
    this.#sweeps.add(sweep);
  }

  /** Every audit record of a model, in journal order (unreadable lines are skipped: the chain shows the gap). */
  async #trail(modelId: string): Promise<AuditRecord[]> {
    const open = this.#models.get(modelId);
    if (!open) return [];
    const lines = await readJournal(`${open.dir}/${JOURNAL}`, this.#options.warn);
    return lines.map((line) => line?.audit).filter((record) => isAuditRecord(record));
  }

  lastAudit(modelId: string): Promise<AuditRecord | null> {
    const trail = this.#options.audit;
    if (trail !== "filesystem") return Promise.resolve(trail?.last(modelId) ?? null);
    return Promise.resolve(this.#models.get(modelId)?.lastAudit ?? null);
  }

  async listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]> {
    const trail = this.#options.audit;
    if (trail !== "filesystem") return trail?.list(modelId, query) ?? [];
    return filterAudit((await this.#trail(modelId)).reverse(), query);
  }

  async allAudit(modelId: string): Promise<AuditRecord[]> {
    const trail = this.#options.audit;
    if (trail !== "filesystem") return trail?.all(modelId) ?? [];
    return await this.#trail(modelId);
  }

  /** `<dir>/recovery/<id>/`: a model's kept records, outliving the model. */
  async #recoveryDir(modelId: string): Promise<string> {
    return `${this.#root.slice(0, -"/models".length)}/recovery/${await nameOf(modelId)}`;
  }

  async keepForRecovery(record: RecoveryRecord): Promise<void> {
    const dir = await this.#recoveryDir(record.modelId);
    await Deno.mkdir(dir, { recursive: true });
    const name = `${record.detectedAt.replace(/[:.]/g, "-")}-${crypto.randomUUID()}.json`;
    await this.#options.disk.write(() =>
      writeFileAtomic(`${dir}/${name}`, JSON.stringify(record, null, 2) + "\n")
    );
  }

  async listRecovery(): Promise<RecoverySummary[]> {
    const root = `${this.#root.slice(0, -"/models".length)}/recovery`;
    const out: RecoverySummary[] = [];
    if (!(await exists(root))) return out;
    for await (const entry of Deno.readDir(root)) {
      out.push(...(await readRecovery(`${root}/${entry.name}`)).map(summarizeRecovery));
    }
    return out.sort((a, b) => a.detectedAt.localeCompare(b.detectedAt));
  }

  async getRecovery(modelId: string): Promise<RecoveryRecord[]> {
    return await readRecovery(await this.#recoveryDir(modelId));
  }

  async deleteRecovery(modelId: string): Promise<number> {
    const dir = await this.#recoveryDir(modelId);
    const kept = (await readRecovery(dir)).length;
    // The directory goes as a whole (a half-written temporary file with it).
    if (await exists(dir)) await Deno.remove(dir, { recursive: true });
    return kept;
  }

  /** Closes the journals and waits for background removals. */
  async close(): Promise<void> {
    for (const open of this.#models.values()) open.journal.close();
    this.#models.clear();
    await Promise.all(this.#sweeps);
    this.#lock?.release();
  }
}
