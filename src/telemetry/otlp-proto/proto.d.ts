/** The OTLP .proto files, imported as their text (Bun's text loader), parsed by protobufjs at start. */
declare module "*.proto" {
  const text: string;
  export default text;
}
