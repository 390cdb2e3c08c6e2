import { render } from "preact";
import { App, boot } from "./app";
import { listen } from "./shortcuts";
import "./styles.css";

listen();
// The engine is asked before the first render, not after its paint: the
// listings are on their way while the page draws its frame.
void boot();
render(<App />, document.getElementById("app")!);
