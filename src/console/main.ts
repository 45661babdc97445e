// The console's entry (D44, D46): one script, one style sheet, nothing inline (the page's CSP).
import { render } from 'preact'
import { App } from './app.js'
import { html } from './html.js'
import './styles.css'

const root = document.getElementById('app')
if (root !== null) render(html`<${App} />`, root)
