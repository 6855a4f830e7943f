export * from "./meta";
export * from "./providers";
