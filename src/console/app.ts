// The console's shell: sign-in or the signed-in screens, chosen by the location's hash
// (#/, #/definiciones, #/m/{module}, #/m/{module}/nuevo, #/m/{module}/{id},
// #/m/{module}/{id}/editar, #/segundo-factor and the other administration screens).
import { useEffect, useState } from 'preact/hooks'
import { ApiError, SIGNED_OUT, call, session } from './api.js'
import { AccountList, AccountPage } from './accounts.js'
import { AuditLog } from './audit-log.js'
import { Definitions } from './definitions.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { ModuleList } from './module-list.js'
import type { ModuleView } from './module-view.js'
import { forgetMotivos, setMotivoAsker, type MotivoAction } from './motivo.js'
import { MotivoPrompt } from './motivo-prompt.js'
import { RecordForm } from './record-form.js'
import { RecordList } from './record-list.js'
import { RecordPage } from './record-page.js'
import { screensOf, type Screens } from './screens.js'
import { RetentionQueue, RetentionRecord } from './retention.js'
import { SecondFactor } from './second-factor.js'
import { SignIn } from './sign-in.js'

/** The hash's segments, decoded; a malformed one (a stray `%`) is the module list. */
function routeOf(hash: string): string[] {
  try {
    return hash
      .replace(/^#\/?/, '')
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent)
  } catch {
    return []
  }
}

interface ScreenProps {
  modules: readonly ModuleView[]
  screens: Screens
  route: readonly string[]
}

function Screen({ modules, screens, route }: ScreenProps) {
  const [kind, name, id, action] = route
  if (kind === 'segundo-factor') return html`<${SecondFactor} />`
  if (kind === 'auditoria' && screens.auditoria) return html`<${AuditLog} />`
  if (kind === 'definiciones' && screens.definiciones) return html`<${Definitions} modules=${modules} />`
  if (kind === 'retencion' && screens.retencion)
    return name === undefined || id === undefined
      ? html`<${RetentionQueue} />`
      : html`<${RetentionRecord} key=${`${name}/${id}`} module=${name} id=${id} />`
  if (kind === 'cuentas' && screens.cuentas !== undefined)
    return name === undefined
      ? html`<${AccountList} module=${screens.cuentas} />`
      : html`<${AccountPage} key=${name} module=${screens.cuentas} id=${name} />`
  const module = kind === 'm' ? modules.find((m) => m.nombre === name) : undefined
  if (module === undefined) return html`<${ModuleList} modules=${modules} screens=${screens} />`
  if (id === undefined) return html`<${RecordList} key=${module.nombre} module=${module} />`
  if (id === 'nuevo') return html`<${RecordForm} key="nuevo" module=${module} id=${null} />`
  if (action === 'editar') return html`<${RecordForm} key=${id} module=${module} id=${id} />`
  return html`<${RecordPage} key=${id} module=${module} id=${id} />`
}

export function App() {
  const [signedIn, setSignedIn] = useState(session.token() !== null)
  const [notice, setNotice] = useState<string | null>(null)
  const [modules, setModules] = useState<readonly ModuleView[] | null>(null)
  const [screens, setScreens] = useState<Screens | null>(null)
  const [error, setError] = useState<unknown>(null)
  /** Bumped to load the modules again (after enrolling the factor the role requires). */
  const [load, setLoad] = useState(0)
  const [route, setRoute] = useState(routeOf(location.hash))
  const [motivo, setMotivo] = useState<{
    module: string
    action: MotivoAction
    answer: (m: string | null) => void
  } | null>(null)

  useEffect(() => {
    const onHash = () => {
      forgetMotivos()
      setRoute(routeOf(location.hash))
    }
    const onSignedOut = (event: Event) => {
      setNotice(`${(event as CustomEvent<string>).detail}: inicie sesión de nuevo.`)
      setModules(null)
      setScreens(null)
      setSignedIn(false)
    }
    addEventListener('hashchange', onHash)
    addEventListener(SIGNED_OUT, onSignedOut)
    setMotivoAsker(
      (module, action) =>
        new Promise((resolve) =>
          setMotivo({
            module,
            action,
            answer: (m) => {
              setMotivo(null)
              resolve(m)
            },
          }),
        ),
    )
    return () => {
      removeEventListener('hashchange', onHash)
      removeEventListener(SIGNED_OUT, onSignedOut)
    }
  }, [])

  useEffect(() => {
    if (!signedIn) return
    setError(null)
    call<ModuleView[]>('GET', '/me/modulos')
      .then(async ({ data }) => {
        setScreens(await screensOf(data))
        setModules(data)
      })
      .catch(setError)
  }, [signedIn, load])

  // Each new screen takes the focus to its heading, so a screen reader announces where it is.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus()
  }, [route, signedIn, modules, screens])

  const signOut = async () => {
    await call('POST', '/auth/logout').catch(() => undefined)
    session.end()
    setNotice('Sesión cerrada.')
    setModules(null)
    setScreens(null)
    setSignedIn(false)
  }
  const user = session.user()

  return html`<header class="top">
      <span class="brand">municipal-records · consola</span>
      ${
        signedIn &&
        user !== null &&
        html`<span class="who">${user.nombre ?? user.username} (${user.rol})</span>
          <a href="#/segundo-factor">Segundo factor</a>
          <button type="button" onClick=${signOut}>Cerrar sesión</button>`
      }
    </header>
    <main id="main">
      ${
        !signedIn
          ? html`<${SignIn}
              notice=${notice}
              onSignedIn=${() => {
                setNotice(null)
                setSignedIn(true)
              }}
            />`
          : error !== null
            ? html`<h1 tabindex="-1">No se pudo abrir la consola</h1>
                <${ErrorBox} error=${error} />
                ${
                  error instanceof ApiError &&
                  error.details.some((d) => d.field === 'segundo_factor') &&
                  html`<${SecondFactor} />
                    <p>
                      Cuando haya dado de alta el factor y guardado sus códigos de recuperación:
                      <button type="button" onClick=${() => setLoad((n) => n + 1)}>Continuar</button>
                    </p>`
                }
                <p><button type="button" onClick=${signOut}>Cerrar sesión</button></p>`
            : modules === null || screens === null
              ? html`<p role="status">Cargando…</p>`
              : html`<${Screen} modules=${modules} screens=${screens} route=${route} />`
      }
    </main>
    ${motivo !== null && html`<${MotivoPrompt} module=${motivo.module} action=${motivo.action} onAnswer=${motivo.answer} />`}`
}
