/**
 * Shared fixtures of the embed's unit tests. Not part of the embed script.
 *
 * @module
 */
import { type Json, localInvoker, type ModelService } from "../../engine/mod.ts";
import { SharedStore } from "../../engine/_test_utils.ts";
import { type LogEntry, StaleModelError } from "../../engine/service/ports.ts";
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
 * A store this tab shares with another (played by the test), which commits writes of its own: until this
 * tab's service reads them (its next refresh), its writes to the model are refused as stale, as IndexedDB's are.
 */
export class OtherTabWrites extends SharedStore {
  readonly unseen: LogEntry[] = [];
  constructor() {
    super();
    this.coordination.refresh = () =>
      Promise.resolve(
        this.unseen.length
          ? { kind: "commits", entries: this.unseen.splice(0), jobs: [], auditHead: null }
          : { kind: "current" },
      );
  }
  /** The other tab commits `mutations` to model `id`; this tab hears of it (a notice) when `heard`. */
  async write(id: string, mutations: Record<string, Json>, heard: boolean): Promise<void> {
    this.unseen.push({ at: Date.now(), source: "client", request: mutations });
    if (heard) await this.changed(id, { kind: "current" });
  }
  #stale(id: string): Promise<never> | undefined {
    return this.unseen.length ? Promise.reject(new StaleModelError(id)) : undefined;
  }
  override commit(...args: Parameters<SharedStore["commit"]>): Promise<void> {
    return this.#stale(args[0]) ?? super.commit(...args);
  }
  override save(...args: Parameters<SharedStore["save"]>): Promise<void> {
    return (args[2]?.created ? undefined : this.#stale(args[0].id)) ?? super.save(...args);
  }
  override delete(id: string): Promise<void> {
    return this.#stale(id) ?? super.delete(id);
  }
}
