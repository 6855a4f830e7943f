import type { Database } from "../../db/client";
import { governanceComplexity } from "../../db/schema";
import type { ComplexityReference } from "../../db/schema/types";
import { badRequest } from "../../http/errors";
import type { ProviderStore } from "../../provider-registry/store";
import type { ComplexityModel } from "./classify";
import { DEFAULT_REFERENCES, DEFAULT_TIERS } from "./default-references";
import { ReferenceSet } from "./reference-set";

const ROW_ID = "default";

/** What `PUT /api/governance/complexity` may replace; what it leaves out is kept (references only those of tiers kept). */
export interface ComplexityInput {
  tiers?: string[];
  references?: ComplexityReference[];
  classifier_model?: string | null;
}

/** The tiers and reference prompts in force: the shipped ones until a write replaces them. */
export class ComplexityStore {
  private tiers = DEFAULT_TIERS;
  private references = DEFAULT_REFERENCES;
  /** `provider/model` asked last, for requests nothing else places; undefined: none. */
  classifierModel: string | undefined;
  private updatedAt: Date | null = null;
  /** Embedded on first use: a gateway whose rules never read a tier never embeds a reference. */
  private built: ComplexityModel | undefined;

  constructor(
    private readonly db: Database,
    private readonly providers: ProviderStore,
  ) {}

  async load(): Promise<void> {
    const [row] = await this.db.select().from(governanceComplexity);
    this.use(row?.tiers ?? DEFAULT_TIERS, row?.references ?? DEFAULT_REFERENCES, row?.classifierModel ?? null, row?.updatedAt ?? null);
  }

  get model(): ComplexityModel {
    return (this.built ??= { tiers: this.tiers, references: new ReferenceSet(this.references, this.tiers) });
  }

  view() {
    return { tiers: this.tiers, references: this.references, classifier_model: this.classifierModel ?? null, customized: this.updatedAt !== null, updated_at: this.updatedAt?.toISOString() ?? null };
  }

  async replace(input: ComplexityInput): Promise<void> {
    const tiers = input.tiers ?? this.tiers;
    const references = input.references ?? this.references.filter((reference) => tiers.includes(reference.tier));
    const classifierModel = input.classifier_model === undefined ? (this.classifierModel ?? null) : input.classifier_model;
    checkTiers(tiers, references);
    if (classifierModel) this.checkModel(classifierModel);
    const now = new Date();
    const values = { id: ROW_ID, tiers, references, classifierModel, createdAt: now, updatedAt: now };
    await this.db.insert(governanceComplexity).values(values).onConflictDoUpdate({ target: governanceComplexity.id, set: { tiers, references, classifierModel, updatedAt: now } });
    this.use(tiers, references, classifierModel, now);
  }

  /** Back to the shipped tiers and references. */
  async reset(): Promise<void> {
    await this.db.delete(governanceComplexity);
    this.use(DEFAULT_TIERS, DEFAULT_REFERENCES, null, null);
  }

  private checkModel(model: string) {
    const provider = model.slice(0, model.indexOf("/"));
    if (!this.providers.get(provider)) throw badRequest(`classifier_model '${model}' must be provider/model with a configured provider`, "classifier_model");
  }

  private use(tiers: string[], references: ComplexityReference[], classifierModel: string | null, updatedAt: Date | null) {
    this.tiers = tiers;
    this.references = references;
    this.classifierModel = classifierModel ?? undefined;
    this.updatedAt = updatedAt;
    this.built = undefined;
  }
}

/** Tier names are distinct and every reference names one of them. */
function checkTiers(tiers: readonly string[], references: readonly ComplexityReference[]) {
  const seen = new Set<string>();
  tiers.forEach((tier, index) => {
    if (seen.has(tier)) throw badRequest(`tier '${tier}' is named twice`, `tiers[${index}]`);
    seen.add(tier);
  });
  references.forEach((reference, index) => {
    if (!seen.has(reference.tier)) throw badRequest(`reference ${index} names tier '${reference.tier}', which is not one of tiers (${tiers.join(", ")})`, `references[${index}].tier`);
  });
}
