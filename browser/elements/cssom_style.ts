/**
 * `style=${cssomStyle({...})}`: Lit's `styleMap` without its first render's
 * `style` attribute. styleMap writes the first render as an attribute, which a
 * host page's Content-Security-Policy without `style-src 'unsafe-inline'`
 * blocks (a violation in the console, the style lost: a grid's columns, a
 * spacer's height); properties set through the CSSOM are not inline markup, so
 * no policy stops them (README "Embedding": the CSP a page needs).
 *
 * @module
 */
import { noChange } from "lit";
import { type AttributePart, Directive, directive, type DirectiveResult } from "lit/directive.js";

/** Style properties by name: camelCase (`gridTemplateColumns`) or custom (`--gap`). */
export type StyleInfo = Readonly<Record<string, string | undefined>>;

class CssomStyle extends Directive {
  #names = new Set<string>();

  render(_styles: StyleInfo): typeof noChange {
    return noChange;
  }

  override update(part: AttributePart, [styles]: [StyleInfo]): typeof noChange {
    const style = (part.element as HTMLElement).style;
    const set = (name: string, value: string) =>
      name.includes("-") ? style.setProperty(name, value) : void Reflect.set(style, name, value);
    for (const name of this.#names) if (styles[name] == null) set(name, "");
    this.#names = new Set(Object.keys(styles).filter((name) => styles[name] != null));
    for (const name of this.#names) set(name, styles[name]!);
    return noChange;
  }
}

/** Sets `styles` on the element through the CSSOM, removing those a later render leaves out. */
export const cssomStyle: (styles: StyleInfo) => DirectiveResult<typeof CssomStyle> = directive(CssomStyle);
