/**
 * Shared plumbing of the demo pages: one WebGL canvas behind the page, drawn into the
 * rectangles of `.view` elements (scissor viewports), a status line, error reporting, and
 * pixel grabs for the browser tests.
 */
import {
  ACESFilmicToneMapping, AmbientLight, Color, DirectionalLight, HemisphereLight, type Camera, type Object3D,
  PerspectiveCamera, type Scene, SRGBColorSpace, Vector2, WebGLRenderer, OrthographicCamera,
} from 'three';

/** A view: an element whose rectangle the canvas draws into. */
export interface ViewRect {
  /** Left edge in device pixels from the canvas's left. */
  x: number;
  /** Bottom edge in device pixels from the canvas's bottom (WebGL convention). */
  y: number;
  /** Width in device pixels. */
  w: number;
  /** Height in device pixels. */
  h: number;
  /** Width / height. */
  aspect: number;
  /** False when the element is not on screen (zero size or scrolled away). */
  visible: boolean;
}

/** Create the page's renderer on `#gl` (throws a readable error when WebGL is missing). */
export function createRenderer(canvas: HTMLCanvasElement): WebGLRenderer {
  let renderer: WebGLRenderer;
  try {
    renderer = new WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true, powerPreference: 'high-performance' });
  } catch (e) {
    throw new Error(`bitrig demo: WebGL is not available in this browser (${e instanceof Error ? e.message : String(e)})`);
  }
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.outputColorSpace = SRGBColorSpace;
  renderer.toneMapping = ACESFilmicToneMapping;
  renderer.setScissorTest(true);
  renderer.setClearColor(new Color(0x1b1f27), 1);
  return renderer;
}

/** Keep the canvas the size of the window (call every frame; cheap when nothing changed). */
export function fitCanvas(renderer: WebGLRenderer): void {
  const canvas = renderer.domElement;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const size = renderer.getSize(_size);
  if (size.x !== w || size.y !== h) renderer.setSize(w, h, false);
}
const _size = new Vector2();

/** Rectangle of `el` on the renderer's canvas, in device pixels. */
export function viewRect(renderer: WebGLRenderer, el: HTMLElement, out?: ViewRect): ViewRect {
  const r = out ?? { x: 0, y: 0, w: 0, h: 0, aspect: 1, visible: false };
  const canvas = renderer.domElement;
  const cr = canvas.getBoundingClientRect();
  const er = el.getBoundingClientRect();
  const pr = renderer.getPixelRatio();
  const left = er.left - cr.left, bottom = cr.bottom - er.bottom;
  r.x = Math.round(left * pr);
  r.y = Math.round(bottom * pr);
  r.w = Math.max(0, Math.round(er.width * pr));
  r.h = Math.max(0, Math.round(er.height * pr));
  r.aspect = r.h > 0 ? r.w / r.h : 1;
  r.visible = r.w > 1 && r.h > 1 && er.bottom > cr.top && er.top < cr.bottom && er.right > cr.left && er.left < cr.right;
  return r;
}

/** Draw `scene` through `camera` into the rectangle of `el`. */
export function renderInto(renderer: WebGLRenderer, el: HTMLElement, scene: Scene, camera: Camera, clear = 0x1b1f27): ViewRect {
  const r = viewRect(renderer, el, _rect);
  if (!r.visible) return r;
  if ((camera as PerspectiveCamera).isPerspectiveCamera) {
    const c = camera as PerspectiveCamera;
    if (Math.abs(c.aspect - r.aspect) > 1e-6) { c.aspect = r.aspect; c.updateProjectionMatrix(); }
  }
  renderer.setViewport(r.x / renderer.getPixelRatio(), r.y / renderer.getPixelRatio(), r.w / renderer.getPixelRatio(), r.h / renderer.getPixelRatio());
  renderer.setScissor(r.x / renderer.getPixelRatio(), r.y / renderer.getPixelRatio(), r.w / renderer.getPixelRatio(), r.h / renderer.getPixelRatio());
  renderer.setClearColor(clear, 1);
  renderer.clear();
  renderer.render(scene, camera);
  return r;
}
const _rect: ViewRect = { x: 0, y: 0, w: 0, h: 0, aspect: 1, visible: false };

/** Fit an orthographic camera's frustum around a box (y up) for a view of `aspect`. */
export function fitOrtho(camera: OrthographicCamera, halfHeight: number, aspect: number): void {
  const hw = halfHeight * aspect;
  if (camera.top !== halfHeight || camera.right !== hw) {
    camera.left = -hw; camera.right = hw; camera.top = halfHeight; camera.bottom = -halfHeight;
    camera.updateProjectionMatrix();
  }
}

/** Lights shared by the pages. */
export function addLights(scene: Scene, layers: number[] = [0]): Object3D[] {
  const hemi = new HemisphereLight(0xdfe8ff, 0x3a3228, 1.6);
  const sun = new DirectionalLight(0xffffff, 2.2);
  sun.position.set(2, 4, 3);
  const amb = new AmbientLight(0xffffff, 0.25);
  const lights = [hemi, sun, amb];
  for (const l of lights) {
    for (const layer of layers) l.layers.enable(layer);
    scene.add(l);
  }
  return lights;
}

/** Pixels of a view as last drawn (RGBA rows, bottom row first), base64, for tests. */
export function grabPixels(renderer: WebGLRenderer, el: HTMLElement): { w: number; h: number; data: string } {
  const r = viewRect(renderer, el);
  const gl = renderer.getContext();
  const w = r.w, h = r.h;
  const buf = new Uint8Array(w * h * 4);
  gl.readPixels(r.x, r.y, w, h, gl.RGBA, gl.UNSIGNED_BYTE, buf);
  let s = '';
  const CH = 0x8000;
  for (let i = 0; i < buf.length; i += CH) s += String.fromCharCode(...buf.subarray(i, i + CH));
  return { w, h, data: btoa(s) };
}

/** Status line in the header. */
export function setStatus(text: string, kind: 'info' | 'busy' | 'error' = 'info'): void {
  const el = document.getElementById('status');
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
}

/** Show a fatal error on the page and in the console (the browser tests fail on it). */
export function reportError(e: unknown): void {
  const msg = e instanceof Error ? e.message : String(e);
  console.error(e);
  setStatus(msg, 'error');
}

/** Wait for the next animation frame (lets the status line paint before heavy work). */
export function nextFrame(): Promise<void> {
  return new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
}

/** A perspective camera for the pages. */
export function makeCamera(): PerspectiveCamera {
  return new PerspectiveCamera(35, 1, 0.02, 200);
}

/** Format a stretch statistic. */
export function fmt(v: number, digits = 2): string {
  return Number.isFinite(v) ? v.toFixed(digits) : '–';
}
