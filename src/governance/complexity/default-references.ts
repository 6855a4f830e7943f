import type { ComplexityReference } from "../../db/schema/types";

/** The tiers a gateway starts with, lowest first. */
export const DEFAULT_TIERS = ["simple", "medium", "complex", "reasoning"];

const labelled = (tier: string, texts: string[]): ComplexityReference[] => texts.map((text) => ({ tier, text }));

/** The reference prompts a gateway starts with; `PUT /api/governance/complexity` replaces them. */
export const DEFAULT_REFERENCES: ComplexityReference[] = [
  ...labelled("simple", [
    "hi",
    "hello, how are you?",
    "thanks!",
    "what is the capital of France?",
    "translate 'good morning' into Spanish",
    "what time zone is Tokyo in?",
    "give me a synonym for happy",
    "how many days are in a leap year?",
    "spell necessary",
    "what does HTTP stand for?",
    "convert 10 miles to kilometers",
    "who wrote Romeo and Juliet?",
    "fix the typo in this sentence: teh cat sat",
    "say yes or no",
  ]),
  ...labelled("medium", [
    "summarize this article in three bullet points",
    "write a short email to my landlord asking to fix the heating",
    "explain the difference between TCP and UDP",
    "write a python function that reverses a string",
    "rewrite this paragraph in a more formal tone",
    "what are the pros and cons of remote work?",
    "explain how a hash map works",
    "write a SQL query that counts orders per customer",
    "draft a product description for a reusable water bottle",
    "explain what a closure is in JavaScript with an example",
    "give me a weekly meal plan for a vegetarian",
    "compare React and Vue for a small project",
    "write unit tests for this function",
  ]),
  ...labelled("complex", [
    "design the database schema and REST API for a multi-tenant invoicing system with roles and audit logs",
    "refactor this module into smaller services, keep the public interface and explain each change",
    "debug why this concurrent code deadlocks under load and propose a fix",
    "write a detailed technical design document for migrating our monolith to microservices",
    "implement a rate limiter with a sliding window in Go, with tests and benchmarks",
    "analyze this dataset, find anomalies and explain their likely causes",
    "review this pull request for security issues, race conditions and performance problems",
    "build a complete CLI tool that syncs two directories over SSH with conflict resolution",
    "write a compiler pass that eliminates dead code in this intermediate representation",
    "plan a marketing strategy for launching a B2B SaaS product in three countries, with budget and timeline",
    "implement an LRU cache with expiry that is safe for concurrent use and explain the trade-offs",
    "translate this legal contract into German, keeping the defined terms consistent",
  ]),
  ...labelled("reasoning", [
    "prove that there are infinitely many prime numbers",
    "solve this step by step: a train leaves at 3pm at 60 mph, another at 4pm at 80 mph; when does the second catch up?",
    "prove that the square root of 2 is irrational",
    "find all integer solutions of x^2 - y^2 = 2024 and prove there are no others",
    "work out the time complexity of this recursive algorithm and prove it with the master theorem",
    "a puzzle: three boxes are all labelled wrongly; with one draw, how do you relabel them? reason carefully",
    "derive the closed form of the sum of the first n squares and prove it by induction",
    "is this argument logically valid? identify every hidden assumption and counterexample",
    "what is the probability that two of 23 people share a birthday? derive it",
    "think step by step and verify each step: which of these scheduling constraints can be satisfied together?",
    "prove or disprove: every bounded monotone sequence of real numbers converges",
    "find the optimal strategy for this game using backward induction and justify it rigorously",
  ]),
];
