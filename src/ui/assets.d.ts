/** Stylesheets are bundled by Bun's bundler into the dashboard's CSS file. */
declare module "*.css";
