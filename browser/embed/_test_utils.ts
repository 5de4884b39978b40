/**
 * Shared fixtures of the embed's unit tests. Not part of the embed script.
 *
 * @module
 */
import { type Json, localInvoker, ModelService, type ModelSpec, operations } from "../../engine/mod.ts";
import { SharedStore } from "../../engine/_test_utils.ts";
import { MemoryAuditTrail, MemoryModelStore } from "../../engine/service/memory.ts";
import {
  type CommitStates,
  type LoadedModel,
  type LogEntry,
  type PersistedState,
  StaleModelError,
} from "../../engine/service/ports.ts";
import type { ReplaceJournal, ReplaceRecord, Settling } from "./replace_journal.ts";

/** A replacement journal in memory, its records readable. */
export function memoryJournal(): ReplaceJournal & { records: Map<string, ReplaceRecord> } {
  const records = new Map<string, ReplaceRecord>();
  return {
    where: "memory",
    records,
    read: (id) => Promise.resolve(records.get(id)),
    write: (id, record) => Promise.resolve(void records.set(id, record)),
    remove: (id) => Promise.resolve(void records.delete(id)),
  };
}

/** `service` as an open settles through it. */
export function settling(service: ModelService): Settling {
  return {
    ...localInvoker(service),
    deleteModel: service.deleteModel.bind(service),
    createModel: service.createModel.bind(service),
  };
}

/**
 * A store this tab shares with another (played by the test), which commits writes of its own through a
 * service of its own, as a real tab does (its state, log entry and audit record stored): until this tab's
 * service reads them (its next refresh), its writes to the model are refused as stale, as IndexedDB's are.
 */
export class OtherTabWrites extends SharedStore {
  readonly unseen: LogEntry[] = [];
  /** Each model's spec and state as stored, which the other tab loads. */
  readonly #stored = new Map<string, { spec: ModelSpec; base: PersistedState }>();
  constructor(readonly trail = new MemoryAuditTrail()) {
    super(trail);
    this.coordination.refresh = (id) => {
      if (!this.unseen.length) return Promise.resolve({ kind: "current" });
      const last = trail.last(id);
      const auditHead = last && { sequence: last.sequence, hash: last.hash };
      return Promise.resolve({ kind: "commits", entries: this.unseen.splice(0), jobs: [], auditHead });
    };
  }
  /** The other tab commits `mutations` to model `id` (as stored); this tab hears of it (a notice) when `heard`. */
  async write(id: string, mutations: Record<string, Json>, heard: boolean): Promise<void> {
    const stored = this.#stored.get(id);
    if (!stored) throw new Error(`no model '${id}' is stored`);
    const other = await ModelService.open({
      store: new OtherTabView(this, this.trail, { ...stored, log: [] }),
    });
    try {
      await localInvoker(other).invoke(operations.mutate, { id, mutations });
    } finally {
      await other.close();
    }
    if (heard) await this.changed(id, { kind: "current" });
  }
  /** The other tab's commit: stored, and unseen by this tab. */
  committed(id: string, entry: LogEntry, state: PersistedState): void {
    this.#keep(id, state);
    this.unseen.push(entry);
  }
  /** The state model `id` was committed in. */
  #keep(id: string, state: PersistedState): void {
    const stored = this.#stored.get(id);
    if (stored) this.#stored.set(id, { spec: stored.spec, base: structuredClone(state) });
  }
  #stale(id: string): Promise<never> | undefined {
    return this.unseen.length ? Promise.reject(new StaleModelError(id)) : undefined;
  }
  override async commit(...args: Parameters<SharedStore["commit"]>): Promise<void> {
    await (this.#stale(args[0]) ?? super.commit(...args));
    this.#keep(args[0], (args[2] as CommitStates).current());
  }
  override async save(...args: Parameters<SharedStore["save"]>): Promise<void> {
    await ((args[2]?.created ? undefined : this.#stale(args[0].id)) ?? super.save(...args));
    this.#stored.set(args[0].id, { spec: args[0], base: structuredClone(args[1]) });
  }
  override async delete(id: string): Promise<void> {
    await (this.#stale(id) ?? super.delete(id));
    this.#stored.delete(id);
  }
}

/** The other tab's view of an {@link OtherTabWrites} store: the model it holds, and the trail they share. */
class OtherTabView extends MemoryModelStore {
  constructor(readonly shared: OtherTabWrites, trail: MemoryAuditTrail, readonly model: LoadedModel) {
    super(trail);
  }
  override load(): Promise<LoadedModel[]> {
    return Promise.resolve([structuredClone(this.model)]);
  }
  override async commit(...args: Parameters<MemoryModelStore["commit"]>): Promise<void> {
    await super.commit(...args);
    this.shared.committed(args[0], args[1] as LogEntry, (args[2] as CommitStates).current());
  }
}
