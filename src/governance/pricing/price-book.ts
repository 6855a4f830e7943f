import type { ProviderStore } from "../../provider-registry/store";
import type { PricedRequest, PricingOverrideStore } from "../stores/pricing-overrides";
import { catalogOutputLimit, catalogPrice } from "./catalog";
import { type Billed, costOf, type ModelPrice } from "./cost";

/** Prices: the most specific operator override, laid over the catalogue (src/governance/pricing/README.md). */
export class PriceBook {
  constructor(
    private readonly overrides: PricingOverrideStore,
    private readonly providers: ProviderStore,
  ) {}

  /** Undefined when neither the catalogue nor an override knows the model. */
  priceOf(request: PricedRequest): ModelPrice | undefined {
    const family = this.familyOf(request.provider);
    const listed = catalogPrice(family, request.variant ? `${request.model}@${request.variant}` : request.model);
    const override = this.overrides.bestMatch(request);
    if (!override) return listed;
    // An override may set only some prices; what neither it nor the catalogue sets costs nothing.
    // Its flat prices hold at any prompt length: the catalogue's long-context tiers would replace them.
    const { tiers: _, ...flat } = listed ?? {};
    return { input_cost_per_token: 0, output_cost_per_token: 0, ...flat, ...override.patch };
  }

  /** The most output tokens the model writes in one reply, where the catalogue knows it. */
  outputLimitOf(request: PricedRequest): number | undefined {
    return catalogOutputLimit(this.familyOf(request.provider), request.model);
  }

  costOf(request: PricedRequest, billed: Billed): number | undefined {
    const price = this.priceOf(request);
    return price && costOf(billed, price);
  }

  private familyOf(provider: string): string {
    return this.providers.get(provider)?.customProviderConfig?.base_provider_type ?? provider;
  }
}
