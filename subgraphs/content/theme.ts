/**
 * Themes: the colors, typography and mode a site's channels are drawn with. A site's theme is its
 * settings.theme over the defaults below; a channel's classic theme options (accent colors) override
 * the site's accents on that channel.
 */
import { badInput } from '../../shared/errors';

export interface ThemeModel {
  id: string;
  name: string;
  type: string;
  mode: string;
  button: { borderRadius: string; textCapitalization: string };
  colors: Record<string, string>;
  typography: { body: string; headline: string };
  creator: string | null;
  owner: string | null;
  tags: string[];
  created: number | null;
  modified: number | null;
}

const COLOR_KEYS = [
  'accentPrimary',
  'accentSecondary',
  'accentTertiary',
  'alertConfirmation',
  'alertWarning',
  'alertError',
  'highlightPrimary',
  'highlightSecondary',
  'highlightTertiary',
  'surface1',
  'surface2',
  'surface3',
  'surface4',
  'surface5',
  'surface6',
  'text100',
  'text200',
  'text300',
  'text400',
  'text500',
] as const;

export const DEFAULT_THEME: ThemeModel = {
  id: 'classic-dark',
  name: 'Classic dark',
  type: 'classic',
  mode: 'dark',
  button: { borderRadius: 'rounded', textCapitalization: 'uppercase' },
  colors: {
    accentPrimary: '#6c5ce7',
    accentSecondary: '#00cec9',
    accentTertiary: '#fdcb6e',
    alertConfirmation: '#00b894',
    alertWarning: '#fdcb6e',
    alertError: '#d63031',
    highlightPrimary: '#ffffff',
    highlightSecondary: '#dfe6e9',
    highlightTertiary: '#b2bec3',
    surface1: '#0b0b0f',
    surface2: '#15151c',
    surface3: '#1f1f29',
    surface4: '#2a2a36',
    surface5: '#353543',
    surface6: '#414152',
    text100: '#ffffff',
    text200: '#e5e5ea',
    text300: '#b9b9c3',
    text400: '#8d8d99',
    text500: '#62626e',
  },
  typography: { body: 'Inter', headline: 'Inter' },
  creator: null,
  owner: null,
  tags: [],
  created: null,
  modified: null,
};

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const isRecord = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown, fallback: string) => (typeof value === 'string' && value ? value : fallback);

/** Checks a theme given in site settings; each error names the field. */
export function checkTheme(theme: unknown, field = 'settings.theme'): void {
  if (theme === undefined || theme === null) return;
  if (!isRecord(theme)) throw badInput(`${field} must be an object`, field);
  if (theme.mode !== undefined && theme.mode !== 'dark' && theme.mode !== 'light') throw badInput(`${field}.mode must be dark or light`, `${field}.mode`);
  if (theme.colors !== undefined) {
    if (!isRecord(theme.colors)) throw badInput(`${field}.colors must be an object`, `${field}.colors`);
    for (const [key, value] of Object.entries(theme.colors)) {
      if (!(COLOR_KEYS as readonly string[]).includes(key))
        throw badInput(`${field}.colors.${key} is not a theme color (${COLOR_KEYS.join(', ')})`, `${field}.colors.${key}`);
      if (typeof value !== 'string' || !HEX_COLOR.test(value)) throw badInput(`${field}.colors.${key} must be a hex color`, `${field}.colors.${key}`);
    }
  }
}

/** The site's theme: settings.theme over the defaults. */
export function siteTheme(settings: unknown): ThemeModel {
  const given = isRecord(settings) && isRecord(settings.theme) ? settings.theme : {};
  const button = isRecord(given.button) ? given.button : {};
  const typography = isRecord(given.typography) ? given.typography : {};
  const colors = isRecord(given.colors) ? (given.colors as Record<string, string>) : {};
  return {
    id: text(given.id ?? given._id, DEFAULT_THEME.id),
    name: text(given.name, DEFAULT_THEME.name),
    type: text(given.type, DEFAULT_THEME.type),
    mode: text(given.mode, DEFAULT_THEME.mode),
    button: {
      borderRadius: text(button.borderRadius, DEFAULT_THEME.button.borderRadius),
      textCapitalization: text(button.textCapitalization, DEFAULT_THEME.button.textCapitalization),
    },
    colors: { ...DEFAULT_THEME.colors, ...colors },
    typography: { body: text(typography.body, DEFAULT_THEME.typography.body), headline: text(typography.headline, DEFAULT_THEME.typography.headline) },
    creator: typeof given.creator === 'string' ? given.creator : null,
    owner: typeof given.owner === 'string' ? given.owner : null,
    tags: Array.isArray(given.tags) ? given.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    created: typeof given.created === 'number' ? given.created : null,
    modified: typeof given.modified === 'number' ? given.modified : null,
  };
}

/** The theme a channel is drawn with: the site's, with the channel's classic accent colors over it. */
export function channelTheme(site: ThemeModel, pageData: unknown): ThemeModel {
  const theme = isRecord(pageData) && isRecord(pageData.theme) ? pageData.theme : {};
  const options = isRecord(theme.classic_theme_options) ? theme.classic_theme_options : {};
  const colors = { ...site.colors };
  if (typeof options.accent_primary === 'string' && HEX_COLOR.test(options.accent_primary)) colors.accentPrimary = options.accent_primary;
  if (typeof options.accent_secondary === 'string' && HEX_COLOR.test(options.accent_secondary)) colors.accentSecondary = options.accent_secondary;
  return { ...site, colors };
}
