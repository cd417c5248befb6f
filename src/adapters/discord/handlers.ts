import type { Client, Interaction, Message } from 'discord.js';
import type { Delivery, DeliveryFn } from '../../inbox/index.js';
import { deliverFeedback, isFeedbackWork, type FeedbackWork } from './feedback.js';
import { createDelivery } from './delivery.js';
import { createInteractionHandler } from './gateway-interaction.js';
import { createMessageHandler } from './gateway-message.js';
import { createHttpInteractionHandler } from './http-interaction.js';
import type { InteractionReply, RawInteraction } from './interactions-endpoint.js';
import type { DiscordWork, HandlerDeps } from './work.js';

/** The Discord adapter's entry points, one file each, and its delivery function. */
export interface Handlers {
  /** A message over the gateway (`gateway-message.ts`). */
  onMessage(message: Message): Promise<void>;
  /** A slash command or button click over the gateway (`gateway-interaction.ts`). */
  onInteraction(interaction: Interaction): Promise<void>;
  /**
   * An interaction Discord POSTed to our interactions endpoint (signature already checked):
   * recorded in the inbox first, then acknowledged by the HTTP response this returns
   * (`http-interaction.ts`).
   */
  onHttpInteraction(interaction: RawInteraction): Promise<InteractionReply>;
  /** The inbox's delivery function for Discord entries, answering through `client` (`delivery.ts`). */
  deliver(client: Client): DeliveryFn<DiscordWork | FeedbackWork>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    onMessage: createMessageHandler(deps),
    onInteraction: createInteractionHandler(deps),
    onHttpInteraction: createHttpInteractionHandler(deps),
    deliver: (client) => {
      const turns = createDelivery(deps)(client);
      // A vote on an answer (issue 47) is no turn: the core records it, the voter is thanked.
      return (d) =>
        isFeedbackWork(d.entry.payload)
          ? deliverFeedback(client, d as Delivery<FeedbackWork>, deps)
          : turns(d as Delivery<DiscordWork>);
    },
  };
}
