/**
 * Competitor profiles for the demo tenant (a Danish energy retailer, Fjordlys Energi).
 * Two keys name real Danish energy companies so the demo matches the design notes'
 * example (`norlys`, `ewii`); their text is generic, illustrative and says so. All other
 * competitors are invented.
 */

export interface CompetitorProfile {
  key: string;
  name: string;
  /** Linked to the demo's default campaign; otherwise tenant-wide. */
  campaign: boolean;
  market: string;
  summary: string;
  offering: string;
  strengths: [string, string, string];
  weaknesses: [string, string, string];
  messaging: string;
  audience: string;
  counter: [string, string, string];
}

export const COMPETITOR_PROFILES: CompetitorProfile[] = [
  {
    key: 'norlys',
    name: 'Norlys',
    campaign: true,
    market: 'Danish electricity, TV and broadband',
    summary:
      'A large, cooperatively rooted Danish group selling electricity alongside TV and internet, with a very broad residential customer base.',
    offering:
      'Typical offers combine a variable spot-price electricity product with bundles for customers who also buy broadband or TV, plus products aimed at electric-car owners.',
    strengths: [
      'a household name with high awareness in most regions',
      'bundling energy with broadband and TV creates switching friction',
      'large marketing budgets and frequent national TV presence',
    ],
    weaknesses: [
      'bundles can make the real electricity price hard to compare',
      'size makes service feel less personal for some customers',
      'price changes on variable products are frequent and draw complaints',
    ],
    messaging:
      'Campaigns tend to stress convenience, everything from one supplier, and the green transition in broad terms rather than specific local projects.',
    audience:
      'Mainstream households, families with several subscriptions and customers who value one bill over the lowest price.',
    counter: [
      'compare the electricity price alone, line by line, against the bundle',
      'stress local customer service and a named contact',
      'show the specific local wind and solar projects behind our green product',
    ],
  },
  {
    key: 'ewii',
    name: 'EWII',
    campaign: true,
    market: 'Danish electricity and energy services',
    summary:
      'A regional Danish energy and utility company with a strong base in southern Jutland and a growing national electricity retail business.',
    offering:
      'Sells variable and fixed electricity products, charging solutions for electric cars and energy services for homes and businesses.',
    strengths: [
      'trusted regional brand with long local history',
      'credible in charging and energy services, not only retail',
      'competitive prices in periodic campaigns',
    ],
    weaknesses: [
      'lower awareness outside its home region',
      'product range can feel technical to private customers',
      'campaign prices are time-limited and reset afterwards',
    ],
    messaging: 'Messages lean on local roots, practical solutions and electric-car charging at home.',
    audience: 'Homeowners in the region, electric-car owners and small businesses.',
    counter: [
      'match the local-roots story with our own regional service',
      'offer a simpler, one-page product comparison',
      'highlight that our price does not jump back after an introductory period',
    ],
  },
  {
    key: 'nordvind',
    name: 'Nordvind El',
    campaign: true,
    market: 'Danish green electricity (online only)',
    summary:
      'An online-only electricity retailer that sells 100% wind-certified power at a low monthly fee and runs almost all service through its app.',
    offering:
      'One variable product at spot price plus a small surcharge and a monthly subscription; an optional fixed price for 6 months appears in winter campaigns.',
    strengths: [
      'lowest advertised monthly fee in most comparisons',
      'clean, modern app with hourly prices',
      'strong social media presence with younger customers',
    ],
    weaknesses: [
      'no phone support: chat only, with slow answers in busy periods',
      'green claims rely on certificates rather than own production',
      'price rises in the subscription have been frequent',
    ],
    messaging: 'Playful TikTok and Instagram content about cheap green power and switching in two minutes.',
    audience: 'Renters and young professionals in the large cities who manage everything on their phone.',
    counter: [
      'offer a real person on the phone within minutes',
      'explain where our wind power physically comes from',
      'show the total yearly cost, not only the monthly fee',
    ],
  },
  {
    key: 'vestkraft',
    name: 'Vestkraft',
    campaign: true,
    market: 'Danish electricity with fixed-price products',
    summary:
      'A mid-sized retailer best known for fixed-price contracts, positioned as the safe choice for households that fear winter price spikes.',
    offering:
      'Fixed prices for 12 or 24 months, a flexible product at spot price and an add-on insurance against extreme price hours.',
    strengths: [
      'clear, easy-to-understand fixed-price promise',
      'high trust among older customers',
      'good ratings for billing accuracy',
    ],
    weaknesses: [
      'fixed prices are set with a large safety margin and are often above the market',
      'exit fees on 24-month contracts',
      'little visible green profile',
    ],
    messaging: 'Calm, trustworthy TV and print ads: "Know your price, every month" with families at the kitchen table.',
    audience: 'Homeowners aged 50+, families with tight budgets and customers burned by the 2022 price crisis.',
    counter: [
      'show what their fixed price would have cost against the spot price over the past year',
      'offer flexibility without exit fees',
      'combine price security with a genuinely green product',
    ],
  },
  {
    key: 'bolgen',
    name: 'Bølgen Energi',
    campaign: true,
    market: 'Danish electricity and smart-home services',
    summary:
      'A technology-led retailer that sells electricity together with smart control of heat pumps, chargers and home batteries.',
    offering:
      'Spot-price electricity with automatic load shifting through its app, hardware bundles and a monthly smart-home subscription.',
    strengths: [
      'genuinely useful automation that lowers bills for heavy users',
      'partnerships with heat-pump and charger installers',
      'strong reviews in tech media',
    ],
    weaknesses: [
      'value depends on owning compatible equipment',
      'complex pricing with several subscriptions',
      'small customer service team',
    ],
    messaging: 'Product close-ups and 3D renders of the app showing savings from moving consumption to cheap hours.',
    audience: 'Owners of detached houses with heat pumps, electric cars or solar panels.',
    counter: [
      'offer smart-hour price alerts without requiring hardware',
      'keep one simple price for customers who do not want automation',
      'partner with local installers for a personal service',
    ],
  },
  {
    key: 'gronstrom',
    name: 'GrønStrøm',
    campaign: true,
    market: 'Danish certified green electricity',
    summary:
      'A small retailer with a purist green profile that only buys power from named Danish wind and solar parks and publishes the mix monthly.',
    offering:
      'One product at spot price plus a green surcharge, with part of the margin donated to new community energy projects.',
    strengths: [
      'the most credible green story in the market',
      'loyal customers who recommend it to friends',
      'transparent monthly climate reporting',
    ],
    weaknesses: [
      'higher surcharge than most competitors',
      'small marketing reach outside green-minded segments',
      'limited service hours',
    ],
    messaging: 'Documentary-style video about the people behind local wind parks and the impact of each customer.',
    audience: 'Climate-engaged households, often highly educated and urban.',
    counter: [
      'match the transparency with our own monthly reporting',
      'show that green does not need to cost more with us',
      'lean on our local projects and service hours',
    ],
  },
  {
    key: 'kystlys',
    name: 'Kystlys Forsyning',
    campaign: true,
    market: 'Regional Danish utility (electricity, water, heating)',
    summary:
      'A municipal-owned regional utility that sells electricity to its water and district-heating customers along the west coast.',
    offering:
      'Electricity at spot price or a 12-month fixed price, sold with a combined utility bill and a loyalty discount for long-standing customers.',
    strengths: [
      'customers already trust it for water and heating',
      'combined bill is convenient',
      'strong presence at local events and sports clubs',
    ],
    weaknesses: [
      'dated website and self-service',
      'slow to launch new products such as EV charging',
      'little relevance outside its supply area',
    ],
    messaging: 'Warm, local radio and newspaper ads featuring employees and customers from the area.',
    audience: 'Established households in the supply area, many of them customers for decades.',
    counter: [
      'offer a better digital experience with the same local feel',
      'lead on EV charging and smart-home features',
      'make switching simple and handled by us',
    ],
  },
  {
    key: 'solhavn',
    name: 'Solhavn Energi',
    campaign: true,
    market: 'Danish electricity for solar and EV households',
    summary:
      'A fast-growing retailer focused on households that produce their own solar power and charge electric cars.',
    offering:
      'Buys back surplus solar power at spot price, offers night-time EV charging tariffs and sells home batteries on instalments.',
    strengths: [
      'best buy-back terms for solar owners',
      'attractive EV night tariff',
      'strong partner network of solar installers',
    ],
    weaknesses: [
      'less attractive for households without solar or an EV',
      'buy-back terms have changed twice in a year',
      'long waiting times for battery installation',
    ],
    messaging: 'Aspirational lifestyle photography of sunny rooftops and cars charging in driveways.',
    audience: 'Owners of detached houses with solar panels or plans for them; early adopters of electric cars.',
    counter: [
      'offer a stable buy-back promise',
      'include EV charging in a simple package for every customer',
      'show total savings for ordinary households too',
    ],
  },
  {
    key: 'hedevaerk',
    name: 'Hedeværk El',
    campaign: true,
    market: 'Danish discount electricity',
    summary:
      'A discount electricity retailer that competes almost only on price and advertises heavily on comparison sites.',
    offering: 'A single spot-price product with a very low surcharge, a free first month and few extras.',
    strengths: [
      'often cheapest on price-comparison sites',
      'simple product and sign-up',
      'aggressive introductory offers',
    ],
    weaknesses: ['fees added after the first months', 'poor reviews for customer service', 'no green or local profile'],
    messaging: 'Bold typography display and search ads: the price in large numbers and "switch in 5 minutes".',
    audience: 'Price-sensitive switchers who compare providers once a year.',
    counter: [
      'compare the cost over 12 months, not the first month',
      'point to service ratings and response times',
      'add green power and local service at a small difference in price',
    ],
  },
  {
    key: 'elvaerket-nord',
    name: 'Elværket Nord',
    campaign: true,
    market: 'Danish electricity in northern Jutland',
    summary:
      'A consumer-owned electricity company in northern Jutland that returns part of its profit to members as an annual bonus.',
    offering: 'Spot-price and fixed-price products; members receive a yearly dividend and discounts on energy advice.',
    strengths: [
      'member dividend is a strong loyalty driver',
      'deep local trust and sponsorships',
      'good advice services for homeowners',
    ],
    weaknesses: [
      'dividend is uncertain and paid only once a year',
      'limited digital tools',
      'little presence outside the north',
    ],
    messaging: 'Nostalgic TV and local press about ownership, community and decades of service.',
    audience: 'Homeowners and farms in northern Jutland.',
    counter: [
      'show a lower price every month instead of an uncertain yearly bonus',
      'offer modern app features',
      'emphasise our own community investments',
    ],
  },
  {
    key: 'tellus',
    name: 'Tellus Mobil',
    campaign: false,
    market: 'Danish mobile subscriptions',
    summary: 'A large mobile operator competing on unlimited data and 5G, with a youth brand for customers under 26.',
    offering: 'Unlimited data plans, family sharing, streaming bundles and frequent half-price introductory offers.',
    strengths: ['strong 5G network marketing', 'popular youth brand on TikTok', 'bundles with streaming services'],
    weaknesses: [
      'prices rise after the introductory period',
      'customer service queues at peak times',
      'complex bundle terms',
    ],
    messaging: 'Playful short videos about streaming without limits and festival coverage.',
    audience: 'Young adults and families with several phones.',
    counter: [
      'show the full price after six months',
      'offer simpler plans without bundles',
      'promise short support queues',
    ],
  },
  {
    key: 'bluewave',
    name: 'Bluewave Mobile',
    campaign: false,
    market: 'Danish low-cost mobile',
    summary: 'A low-cost mobile brand without contracts that sells online and runs on a partner network.',
    offering: 'Cheap plans with generous data, no binding period and a bring-a-friend discount.',
    strengths: ['low prices with no contract', 'simple online sign-up', 'referral programme drives growth'],
    weaknesses: ['coverage depends on the partner network', 'support only by chat', 'few extras'],
    messaging: 'Bold, price-led display and search ads with "no contract, no catch".',
    audience: 'Price-conscious customers and second phones.',
    counter: [
      'stress coverage and real phone support',
      'match flexibility with no binding period',
      'add value through bundles',
    ],
  },
  {
    key: 'northpeak',
    name: 'Northpeak Credit',
    campaign: false,
    market: 'Nordic credit cards',
    summary: 'A credit card issuer built around simple cashback without categories or annual fees.',
    offering: 'A cashback card with no annual fee, instant digital issuing and periodic grocery cashback boosts.',
    strengths: ['easy to understand', 'no annual fee', 'fast digital sign-up'],
    weaknesses: [
      'interest rate is high if you carry a balance',
      'few travel benefits',
      'cashback boosts are short-lived',
    ],
    messaging: 'Everyday lifestyle photography with the message "every purchase pays you back".',
    audience: 'Everyday spenders who pay off their card each month.',
    counter: [
      'show total value including travel insurance',
      'explain interest costs clearly',
      'offer rewards that last',
    ],
  },
  {
    key: 'skyward',
    name: 'Skyward Nordic',
    campaign: false,
    market: 'Nordic airline',
    summary: 'A Nordic airline that competes on low fares and a loyalty programme, with frequent flash sales.',
    offering: 'Low fares, bundles with seats and bags, and a points programme with upgrades.',
    strengths: ['low headline fares', 'loyal frequent flyers', 'broad route network in the Nordics'],
    weaknesses: [
      'extras make the final price much higher',
      'punctuality issues in peak season',
      'strict change fees on the cheapest fares',
    ],
    messaging: 'Urgent sale banners and aspirational destination photography.',
    audience: 'Leisure travellers and frequent weekend flyers.',
    counter: ['show the final price with bags and seats', 'promise flexible changes', 'highlight punctuality'],
  },
];
