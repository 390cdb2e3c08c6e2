import { render } from "preact";
import { App } from "./app";
import { listen } from "./shortcuts";
import "./styles.css";

listen();
render(<App />, document.getElementById("app")!);
