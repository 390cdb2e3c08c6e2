import { render } from "preact";
import { App, boot, listingsAsked } from "./app";
import { reviewListed } from "./state/listing";
import { listen } from "./shortcuts";
import "./styles.css";

performance.mark("main");
listen();
// The engine is asked before the first render, and the window is first
// drawn with the review's first rows (300 ms at most after the code has
// loaded): drawn at once, it held the page while the listings' requests
// waited to be sent, and took a second layout when the rows came.
void boot();
const firstRows = listingsAsked.then((asked) => (asked ? reviewListed() : undefined));
const drawn = () => {
  performance.mark("render");
  render(<App />, document.getElementById("app")!);
  performance.mark("rendered");
};
void Promise.race([firstRows, new Promise((r) => setTimeout(r, 300))]).then(drawn);
