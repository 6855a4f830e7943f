/** A call's estimated cost, held on each of its budgets from admission until it settles. */
export interface Reservation {
  amount: number;
  counterIds: string[];
  /** In a worker of `server.workers`: the admission that made it, by which the first process finds it again. */
  ticket?: number;
}

/**
 * The money calls under way hold on budgets, per counter: in memory only, never saved, so a
 * process that dies takes its holds with it (what it charged before stays). Admission counts a
 * budget's holds as spent; a settlement gives its hold back and charges the real cost.
 */
export class BudgetHolds {
  private readonly held = new Map<string, number>();

  on(counterId: string): number {
    return this.held.get(counterId) ?? 0;
  }

  hold(counterIds: string[], amount: number): Reservation | undefined {
    if (!(amount > 0) || counterIds.length === 0) return undefined;
    for (const counterId of counterIds) this.held.set(counterId, this.on(counterId) + amount);
    return { amount, counterIds };
  }

  release(reservation: Reservation | undefined): void {
    for (const counterId of reservation?.counterIds ?? []) {
      const left = this.on(counterId) - reservation!.amount;
      // Sums of floating-point amounts come back to zero only nearly.
      if (left > 1e-12) this.held.set(counterId, left);
      else this.held.delete(counterId);
    }
  }
}
