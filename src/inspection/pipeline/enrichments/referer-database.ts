/**
 * Floe's own small referer database, written for Floe (not derived from the GPL referer-parser
 * data): medium → source → the domains it uses and, for search engines, the query parameters
 * carrying the search term. Users extend it through the enrichment's `referers` parameter.
 */
export type RefererDatabase = Readonly<
  Record<
    string,
    Readonly<
      Record<
        string,
        { readonly domains: readonly string[]; readonly parameters?: readonly string[] }
      >
    >
  >
>

export const DEFAULT_REFERERS: RefererDatabase = {
  search: {
    Google: {
      domains: [
        'google.com',
        'google.co.uk',
        'google.de',
        'google.fr',
        'google.es',
        'google.it',
        'google.nl',
        'google.ca',
        'google.com.au',
        'google.co.in',
        'google.co.jp',
        'google.com.br',
      ],
      parameters: ['q'],
    },
    Bing: { domains: ['bing.com'], parameters: ['q'] },
    DuckDuckGo: { domains: ['duckduckgo.com'], parameters: ['q'] },
    Yahoo: { domains: ['search.yahoo.com', 'yahoo.com'], parameters: ['p', 'q'] },
    Yandex: { domains: ['yandex.ru', 'yandex.com'], parameters: ['text'] },
    Baidu: { domains: ['baidu.com'], parameters: ['wd', 'word'] },
    Ecosia: { domains: ['ecosia.org'], parameters: ['q'] },
    Qwant: { domains: ['qwant.com'], parameters: ['q'] },
  },
  social: {
    Facebook: { domains: ['facebook.com', 'm.facebook.com', 'l.facebook.com'] },
    Twitter: { domains: ['twitter.com', 't.co', 'x.com'] },
    LinkedIn: { domains: ['linkedin.com', 'lnkd.in'] },
    Reddit: { domains: ['reddit.com'] },
    Instagram: { domains: ['instagram.com'] },
    Pinterest: { domains: ['pinterest.com'] },
    YouTube: { domains: ['youtube.com', 'youtu.be'] },
  },
  email: {
    Gmail: { domains: ['mail.google.com'] },
    'Outlook.com': { domains: ['outlook.live.com', 'outlook.office.com'] },
    'Yahoo! Mail': { domains: ['mail.yahoo.com'] },
    'Proton Mail': { domains: ['mail.proton.me'] },
  },
}
