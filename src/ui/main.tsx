import { render } from "preact";
import { App } from "./app";
import { applyTheme, savedTheme } from "./lib/theme";
import "./styles.css";

// Before the first paint: a page chosen dark never flashes light.
applyTheme(savedTheme(), false);

render(<App />, document.getElementById("app")!);
