export * from "./meta";
export * from "./providers";
export * from "./access";
