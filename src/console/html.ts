// htm bound to Preact: the views' templates, without a JSX compile step.
import htm from 'htm'
import { h } from 'preact'

export const html = htm.bind(h)
