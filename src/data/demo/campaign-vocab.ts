/**
 * The words the demo campaigns are made of: fictional companies in four industries
 * (cards, energy, telecom, travel), their offers, value propositions and ad copy.
 * Every company and brand here is invented.
 */

export type Industry = 'cards' | 'energy' | 'telecom' | 'travel';

export interface Company {
  name: string;
  industry: Industry;
  brands: string[];
  /** The value props this company leans on; most of its campaigns use one of them. */
  core: string[];
  /** Relative number of campaigns. */
  weight: number;
}

export const COMPANIES: Company[] = [
  // Cards
  {
    name: 'Kronekort Bank',
    industry: 'cards',
    brands: ['Kronekort Classic', 'Kronekort Platinum'],
    core: ['Rewards Points', 'Premium'],
    weight: 1.3,
  },
  {
    name: 'Aurora Card',
    industry: 'cards',
    brands: ['Aurora Everyday', 'Aurora Travel Elite'],
    core: ['Travel Perks', 'Rewards Points'],
    weight: 1.1,
  },
  {
    name: 'Northpeak Credit',
    industry: 'cards',
    brands: ['Northpeak Cashback'],
    core: ['Cash Back', 'No Annual Fee'],
    weight: 1.2,
  },
  {
    name: 'Harbor Rewards',
    industry: 'cards',
    brands: ['Harbor Rewards Visa'],
    core: ['Rewards Points', 'Cash Back'],
    weight: 0.9,
  },
  {
    name: 'Meridian Pay',
    industry: 'cards',
    brands: ['Meridian Flex'],
    core: ['Low Interest', 'Digital Experience'],
    weight: 0.8,
  },
  {
    name: 'Copperline',
    industry: 'cards',
    brands: ['Copperline Student', 'Copperline Black'],
    core: ['No Annual Fee', 'Premium'],
    weight: 0.9,
  },
  {
    name: 'Lumen Bank',
    industry: 'cards',
    brands: ['Lumen Card'],
    core: ['Digital Experience', 'Security'],
    weight: 0.8,
  },
  {
    name: 'Vesta Finance',
    industry: 'cards',
    brands: ['Vesta Mastercard'],
    core: ['Low Interest', 'Cash Back'],
    weight: 0.7,
  },
  // Energy
  {
    name: 'Fjordlys Energi',
    industry: 'energy',
    brands: ['Fjordlys', 'Fjordlys Grøn'],
    core: ['Green Energy', 'Local Service'],
    weight: 1.4,
  },
  { name: 'Nordvind El', industry: 'energy', brands: ['Nordvind'], core: ['Green Energy', 'Low Price'], weight: 1.1 },
  {
    name: 'Vestkraft',
    industry: 'energy',
    brands: ['Vestkraft Fastpris', 'Vestkraft Flex'],
    core: ['Fixed Price', 'Transparency'],
    weight: 1.1,
  },
  {
    name: 'Bølgen Energi',
    industry: 'energy',
    brands: ['Bølgen'],
    core: ['Sustainability', 'Smart Home'],
    weight: 0.9,
  },
  {
    name: 'GrønStrøm',
    industry: 'energy',
    brands: ['GrønStrøm'],
    core: ['Green Energy', 'Sustainability'],
    weight: 0.9,
  },
  {
    name: 'Kystlys Forsyning',
    industry: 'energy',
    brands: ['Kystlys'],
    core: ['Local Service', 'Fixed Price'],
    weight: 0.8,
  },
  { name: 'Solhavn Energi', industry: 'energy', brands: ['Solhavn'], core: ['EV Charging', 'Smart Home'], weight: 0.9 },
  { name: 'Hedeværk El', industry: 'energy', brands: ['Hedeværk'], core: ['Low Price', 'Transparency'], weight: 0.7 },
  // Telecom
  {
    name: 'Tellus Mobil',
    industry: 'telecom',
    brands: ['Tellus', 'Tellus Ung'],
    core: ['Unlimited Data', '5G'],
    weight: 1.3,
  },
  {
    name: 'Fjordnet',
    industry: 'telecom',
    brands: ['Fjordnet Fiber'],
    core: ['Fast Speed', 'Customer Service'],
    weight: 1.0,
  },
  {
    name: 'Signalhuset',
    industry: 'telecom',
    brands: ['Signalhuset'],
    core: ['Coverage', 'Customer Service'],
    weight: 0.9,
  },
  {
    name: 'Bluewave Mobile',
    industry: 'telecom',
    brands: ['Bluewave'],
    core: ['Low Price', 'Flexibility'],
    weight: 1.0,
  },
  {
    name: 'Polaris Telecom',
    industry: 'telecom',
    brands: ['Polaris', 'Polaris Familie'],
    core: ['Family Plans', 'Coverage'],
    weight: 0.9,
  },
  { name: 'Kvik Mobil', industry: 'telecom', brands: ['Kvik'], core: ['Low Price', 'Unlimited Data'], weight: 0.8 },
  { name: 'Orbit Fiber', industry: 'telecom', brands: ['Orbit'], core: ['Fast Speed', 'Flexibility'], weight: 0.8 },
  // Travel
  {
    name: 'Skyward Nordic',
    industry: 'travel',
    brands: ['Skyward', 'Skyward Plus'],
    core: ['Low Price', 'Loyalty Rewards'],
    weight: 1.3,
  },
  {
    name: 'Fjeldrejser',
    industry: 'travel',
    brands: ['Fjeldrejser'],
    core: ['Destinations', 'Sustainability'],
    weight: 0.8,
  },
  {
    name: 'Sunpath Holidays',
    industry: 'travel',
    brands: ['Sunpath', 'Sunpath Family'],
    core: ['Family Friendly', 'All Inclusive'],
    weight: 1.1,
  },
  {
    name: 'Borealis Cruises',
    industry: 'travel',
    brands: ['Borealis'],
    core: ['Premium Comfort', 'Destinations'],
    weight: 0.9,
  },
  { name: 'Roamly', industry: 'travel', brands: ['Roamly'], core: ['Flexibility', 'Low Price'], weight: 1.0 },
  {
    name: 'Havblik Ferries',
    industry: 'travel',
    brands: ['Havblik'],
    core: ['Family Friendly', 'Flexibility'],
    weight: 0.7,
  },
  {
    name: 'Atlas Getaways',
    industry: 'travel',
    brands: ['Atlas'],
    core: ['Premium Comfort', 'All Inclusive'],
    weight: 0.8,
  },
];

export const VALUE_PROPS: Record<Industry, string[]> = {
  cards: [
    'Cash Back',
    'Rewards Points',
    'No Annual Fee',
    'Low Interest',
    'Travel Perks',
    'Security',
    'Digital Experience',
    'Premium',
  ],
  energy: [
    'Green Energy',
    'Fixed Price',
    'Low Price',
    'Sustainability',
    'Smart Home',
    'EV Charging',
    'Local Service',
    'Transparency',
  ],
  telecom: [
    'Unlimited Data',
    'Fast Speed',
    'Low Price',
    'Coverage',
    'Family Plans',
    'Flexibility',
    'Customer Service',
    '5G',
  ],
  travel: [
    'Low Price',
    'Flexibility',
    'Family Friendly',
    'Premium Comfort',
    'Destinations',
    'Sustainability',
    'Loyalty Rewards',
    'All Inclusive',
  ],
};

export const SENTIMENTS = [
  'Positive',
  'Aspirational',
  'Playful',
  'Calm',
  'Urgent',
  'Trustworthy',
  'Warm',
  'Empowering',
  'Nostalgic',
];
export const VISUAL_STYLES = [
  'Lifestyle Photography',
  'Product Close-up',
  'Flat Illustration',
  'Bold Typography',
  'Minimalist',
  'User-generated Video',
  '3D Render',
  'Documentary',
  'Collage',
];
export const CHANNELS: (readonly [string, number])[] = [
  ['Facebook', 16],
  ['Instagram', 18],
  ['TikTok', 10],
  ['YouTube', 9],
  ['LinkedIn', 4],
  ['Display', 12],
  ['Search', 10],
  ['Email', 9],
  ['TV', 6],
  ['Out-of-home', 6],
];

/** Offers with `{slots}` filled from OFFER_SLOTS. */
export const OFFERS: Record<Industry, string[]> = {
  cards: [
    '{pct}% cashback on groceries for the first 6 months',
    'No annual fee in the first year',
    '0% interest on purchases for {months} months',
    '{points} bonus points when you spend kr {spend} in the first 90 days',
    'Free travel insurance for the whole family',
    'kr {bonus} welcome bonus when you make your first purchase',
    'Two free airport lounge visits every year',
  ],
  energy: [
    'Fixed price of {kwh} kr/kWh for 12 months',
    "First month's subscription free",
    '100% Danish wind power at no extra cost',
    'kr {bonus} off your first electricity bill',
    'Free smart meter app with hourly price alerts',
    'Half-price EV charging between midnight and 6 am',
    'No binding period: leave whenever you like',
  ],
  telecom: [
    'Unlimited data for kr {price}/month',
    '50% off your subscription for the first 6 months',
    'Free 5G upgrade on every plan',
    'Free router and professional installation',
    'Bring a friend and you both get a month free',
    'Free roaming in the EU and the UK',
    '1000/1000 Mbit fiber for kr {fiber} a month the first year',
  ],
  travel: [
    '{pct2}% off summer flights booked before {month}',
    'Kids under 12 fly free',
    'Book now, pay later in 3 interest-free instalments',
    'Free cancellation up to 48 hours before departure',
    '2-for-1 on weekend cruises',
    'Free upgrade to a sea-view cabin',
    'Double loyalty points on every booking',
  ],
};

export const OFFER_SLOTS: Record<string, (string | number)[]> = {
  pct: [2, 3, 5],
  months: [12, 15, 18],
  points: ['30,000', '50,000', '60,000'],
  spend: ['15,000', '20,000', '25,000'],
  bonus: [300, 500, 750, 1000],
  kwh: ['1.89', '2.05', '2.19', '2.29'],
  price: [99, 129, 149, 179],
  fiber: [249, 299, 329],
  pct2: [15, 20, 25, 30],
  month: ['31 January', '28 February', '31 March', '30 April'],
};

export const HEADLINES: Record<Industry, string[]> = {
  cards: [
    'Every purchase pays you back.',
    'The card that travels as far as you do.',
    'Rewards that actually add up.',
    'Say goodbye to annual fees.',
    'Smarter spending starts here.',
    'Tap, pay, earn.',
    'Your wallet, upgraded.',
    'Make every krone count.',
  ],
  energy: [
    'Power that comes from the wind off our coast.',
    'Know your price. Every month.',
    'Greener electricity without the premium.',
    'Charge your car while the country sleeps.',
    'Your home, running on sea breeze and sunshine.',
    'Electricity with nothing hidden.',
    'Switch in five minutes. We handle the rest.',
    'Local power, local people.',
  ],
  telecom: [
    'Stream, scroll and share without watching the meter.',
    '5G everywhere you actually go.',
    'One plan for the whole family.',
    'Fiber speeds, no fine print.',
    'Coverage from Skagen to Gedser.',
    'Support from real people, in minutes.',
    'No contract. No catch.',
    'More data, less to think about.',
  ],
  travel: [
    'Sunshine is closer than you think.',
    'Your next adventure starts with one click.',
    'The fjords are calling.',
    'Family holidays, minus the stress.',
    'Travel lighter on the planet.',
    'Weekend escapes from kr 899.',
    'Wake up somewhere new.',
    'Plans change. Your booking can too.',
  ],
};

/** Sentences that carry each value prop; `{brand}` is filled in. */
export const PROP_LINES: Record<string, string[]> = {
  'Cash Back': [
    'With {brand} you get money back on the things you buy every week, paid straight to your account.',
    'Groceries, fuel and streaming all earn cashback, with no categories to activate.',
    'The more you use {brand}, the more lands back in your pocket at the end of the month.',
  ],
  'Rewards Points': [
    'Every krone you spend with {brand} earns points you can swap for flights, hotels or gift cards.',
    'Points never expire while your account is open, so you can save up for something big.',
    'Members redeem points for everything from concert tickets to a weekend in Rome.',
  ],
  'No Annual Fee': [
    '{brand} has no annual fee, so the card costs nothing to keep in your wallet.',
    'No yearly charge, no setup cost and no fee for a second card for your partner.',
  ],
  'Low Interest': [
    '{brand} offers one of the lowest purchase rates on the market, with a clear monthly statement.',
    'Spread big purchases over time at a low, fixed rate and always see what you owe.',
  ],
  'Travel Perks': [
    'Travel insurance, lounge access and no currency fees come with {brand} as standard.',
    'Pay abroad in the local currency without a surcharge, wherever your trip takes you.',
  ],
  Security: [
    'Instant alerts and one-tap card freezing keep your money safe with {brand}.',
    'Every purchase is protected, and fraud is on us, not on you.',
  ],
  'Digital Experience': [
    'Open your {brand} account in the app in minutes and start paying with your phone the same day.',
    'Budgets, spending insights and instant notifications live in one simple app.',
  ],
  Premium: [
    '{brand} opens doors to concierge service, priority boarding and invitations to members-only events.',
    'A metal card, a dedicated service line and benefits that match your lifestyle.',
  ],
  'Green Energy': [
    'All the electricity from {brand} is matched with certified power from Danish wind and solar parks.',
    'Choose green power without changing anything at home: same socket, cleaner source.',
    'Every kilowatt-hour you use is backed by renewable guarantees of origin.',
  ],
  'Fixed Price': [
    'With a fixed price from {brand} you know exactly what each kilowatt-hour costs, whatever the market does.',
    'No surprises when the winter prices spike: your rate stays locked for the whole period.',
  ],
  'Low Price': [
    '{brand} keeps its margin low, so more of your money stays with you.',
    'Compare us with your current provider: most households save several hundred kroner a year.',
    'Low monthly prices with no hidden fees or surprise charges.',
  ],
  Sustainability: [
    '{brand} reinvests part of every bill in new local renewable projects.',
    'We publish our climate accounts every year so you can see the impact of your choice.',
  ],
  'Smart Home': [
    'Connect your heat pump and appliances to the {brand} app and let them run when power is cheapest.',
    'Hourly prices in the app help you move the laundry and the dishwasher to the cheap hours.',
  ],
  'EV Charging': [
    'Charge your electric car at home at night and {brand} gives you the lowest hourly price automatically.',
    'A home charger, installation and smart charging in one monthly package.',
  ],
  'Local Service': [
    'Our customer service is based here in the region, and a real person answers within minutes.',
    '{brand} has served the local community for generations and answers to its customers, not shareholders.',
  ],
  Transparency: [
    'One clear price, one monthly fee and a bill you can actually read.',
    'We show the spot price, our surcharge and taxes line by line on every {brand} bill.',
  ],
  'Unlimited Data': [
    'Stream, game and video call as much as you like: data on {brand} never runs out.',
    'No throttling at the end of the month and no extra packs to buy.',
  ],
  'Fast Speed': [
    '{brand} delivers speeds that keep up with the whole household streaming at once.',
    'Download a full season in minutes and enjoy lag-free gaming.',
  ],
  Coverage: [
    '{brand} covers 99% of the country, from city centres to summer houses by the coast.',
    'Strong signal on the train, in the forest and at the festival.',
  ],
  'Family Plans': [
    'Put the whole family on one {brand} plan and share data between everyone.',
    'Add children for a small monthly price and set limits from the parent app.',
  ],
  Flexibility: [
    'Change or cancel your plan whenever you like: there is no binding period with {brand}.',
    'Move your dates, switch destinations or pause your plan in the app, without fees.',
  ],
  'Customer Service': [
    'Real people answer the {brand} support line within three minutes on average.',
    'Chat with support in the app any time of day and get help in your language.',
  ],
  '5G': [
    '5G is included in every {brand} plan at no extra cost.',
    'Faster downloads and lower latency on the network that grows every month.',
  ],
  'Family Friendly': [
    '{brand} has kids clubs, family rooms and meals that children actually want to eat.',
    'Travel with small children without the stress: we sort the seats, prams and car seats.',
  ],
  'Premium Comfort': [
    'Extra legroom, fine dining and quiet lounges make the journey part of the holiday with {brand}.',
    'Wake up to room service and a view of the sea.',
  ],
  Destinations: [
    '{brand} takes you to more than 80 destinations, from Lofoten to Lisbon.',
    'Hidden beaches, mountain huts and old towns: discover places the guidebooks miss.',
  ],
  'Loyalty Rewards': [
    'Members earn points on every {brand} booking and spend them on upgrades and free trips.',
    'Reach silver status after three trips and enjoy priority boarding.',
  ],
  'All Inclusive': [
    'Meals, drinks and activities are all included with {brand}, so the only thing to plan is the next swim.',
    'One price covers the flight, the hotel and everything you eat and drink.',
  ],
};

/** How each channel's copy typically closes. */
export const CHANNEL_CLOSERS: Record<string, string[]> = {
  Facebook: ['Learn more on our website.', 'Tap "Learn more" to see if you qualify.'],
  Instagram: ['Tap the link in our bio.', 'Swipe up to get started.'],
  TikTok: ['Follow for more and check the link.', 'Duet this if you switched too.'],
  YouTube: ['Watch the full story and find out more.', 'Skip the ad, not the offer.'],
  LinkedIn: ['Read how companies like yours save time and money.', 'Connect with our team today.'],
  Display: ['Click to read more.', 'See the offer.'],
  Search: ['Official site. Apply in minutes.', 'Compare plans and sign up online.'],
  Email: ['Reply to this email or log in to your account to claim the offer.', 'Use the button below to get started.'],
  TV: ['Find out more at our website.', 'Search for us online today.'],
  'Out-of-home': ['Scan the QR code to learn more.', 'Find us online.'],
};

export const TERMS: Record<Industry, string[]> = {
  cards: [
    'Credit is subject to approval. Representative APR applies; see the full terms on our website.',
    'Offer valid for new customers only. Terms and conditions apply.',
  ],
  energy: [
    'Prices include taxes and fees. Grid tariffs from your local grid company are added.',
    'Offer valid for private customers who switch before the campaign ends.',
  ],
  telecom: [
    'Minimum price for 6 months applies. Fair use policy applies when roaming.',
    'Offer valid for new subscriptions only. Speeds depend on your address.',
  ],
  travel: [
    'Limited seats at this price. Prices per person, including taxes and fees.',
    'Offer subject to availability. Booking conditions apply.',
  ],
};
