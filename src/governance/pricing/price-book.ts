import type { ProviderStore } from "../../provider-registry/store";
import type { PricedRequest, PricingOverrideStore } from "../stores/pricing-overrides";
import { catalogPrice } from "./catalog";
import { type Billed, costOf, type ModelPrice } from "./cost";

/** Prices: the most specific operator override, laid over the catalogue (src/governance/pricing/README.md). */
export class PriceBook {
  constructor(
    private readonly overrides: PricingOverrideStore,
    private readonly providers: ProviderStore,
  ) {}

  /** Undefined when neither the catalogue nor an override knows the model. */
  priceOf(request: PricedRequest): ModelPrice | undefined {
    const provider = this.providers.get(request.provider);
    const family = provider?.customProviderConfig?.base_provider_type ?? request.provider;
    const listed = catalogPrice(family, request.variant ? `${request.model}@${request.variant}` : request.model);
    const override = this.overrides.bestMatch(request);
    if (!override) return listed;
    // An override may set only some prices; what neither it nor the catalogue sets costs nothing.
    // Its flat prices hold at any prompt length: the catalogue's long-context tiers would replace them.
    const { tiers: _, ...flat } = listed ?? {};
    return { input_cost_per_token: 0, output_cost_per_token: 0, ...flat, ...override.patch };
  }

  costOf(request: PricedRequest, billed: Billed): number | undefined {
    const price = this.priceOf(request);
    return price && costOf(billed, price);
  }
}
